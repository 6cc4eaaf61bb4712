(* vkit.resource-ledger 0.1.0, Coq profile: fixed observations through the bound API of the
   extracted candidate (module Ledger.Bound, nat extracted to OCaml int). Each line is
   OBS <TAB> name <TAB> expected <TAB> observed; vkit compares them. The expected values are written
   out here by hand from the contract, never computed by the code under observation. *)
open Ledger

let n = Params.max_records
let m = Params.command_count

let show_entry e = Printf.sprintf "(%d,%d,%d)" e.e_id e.e_owner e.e_amount
let show_ledger l =
  Printf.sprintf "records=[%s] capacity=%d usage=%d" (String.concat ";" (List.map show_entry l.records)) l.capacity l.usage
let show_reserve_error = function
  | ZeroAmount -> "ZeroAmount" | DuplicateId -> "DuplicateId" | StorageFull -> "StorageFull" | CapacityExceeded -> "CapacityExceeded"
let show_reserve (l', r) =
  (match r with None -> "ok" | Some e -> show_reserve_error e) ^ " " ^ show_ledger l'
let show_release (l', r) =
  (match r with
   | Released a -> Printf.sprintf "Released %d" a
   | ReleaseRejected NotFound -> "NotFound"
   | ReleaseRejected NotOwner -> "NotOwner") ^ " " ^ show_ledger l'
let show_batch (l', r) =
  (match r with
   | None -> "ok"
   | Some TooManyRequests -> "TooManyRequests"
   | Some (RequestFailed (i, e)) -> Printf.sprintf "RequestFailed %d %s" i (show_reserve_error e)) ^ " " ^ show_ledger l'
let show_response = function
  | RReserve r -> "RReserve " ^ (match r with None -> "ok" | Some e -> show_reserve_error e)
  | RRelease (Released a) -> Printf.sprintf "RRelease Released %d" a
  | RRelease (ReleaseRejected NotFound) -> "RRelease NotFound"
  | RRelease (ReleaseRejected NotOwner) -> "RRelease NotOwner"
  | RReserveBatch None -> "RReserveBatch ok"
  | RReserveBatch (Some TooManyRequests) -> "RReserveBatch TooManyRequests"
  | RReserveBatch (Some (RequestFailed (i, e))) -> Printf.sprintf "RReserveBatch RequestFailed %d %s" i (show_reserve_error e)

let obs name expected observed = Printf.printf "OBS\t%s\t%s\t%s\n" name expected observed

let req i o a = { r_id = i; r_owner = o; r_amount = a }

(* A ledger with records 1..k (owner 7, amount 1) and a large capacity. *)
let filled k =
  let rec go l i = if i > k then l else go (fst (Bound.reserve l i 7 1)) (i + 1) in
  go (Bound.coq_new 1000) 1

let rec range a b = if a > b then [] else a :: range (a + 1) b

let () =
  let empty = Bound.coq_new 10 in
  obs "new.empty" "records=[] capacity=10 usage=0" (show_ledger empty);
  let one = Bound.reserve empty 1 7 4 in
  obs "reserve.ok" "ok records=[(1,7,4)] capacity=10 usage=4" (show_reserve one);
  let l1 = fst one in
  obs "reserve.zero_amount_first" "ZeroAmount records=[(1,7,4)] capacity=10 usage=4" (show_reserve (Bound.reserve l1 1 7 0));
  obs "reserve.duplicate_id" "DuplicateId records=[(1,7,4)] capacity=10 usage=4" (show_reserve (Bound.reserve l1 1 8 2));
  obs "reserve.duplicate_before_capacity" "DuplicateId records=[(1,7,4)] capacity=10 usage=4" (show_reserve (Bound.reserve l1 1 8 99));
  obs "reserve.capacity_exceeded" "CapacityExceeded records=[(1,7,4)] capacity=10 usage=4" (show_reserve (Bound.reserve l1 2 7 7));
  let full = filled n in
  let full_text = show_ledger full in
  obs "reserve.full_storage_before_capacity" ("StorageFull " ^ full_text) (show_reserve (Bound.reserve full (n + 1) 7 5000));
  obs "reserve.at_exact_capacity" "ok records=[(1,7,4);(2,7,6)] capacity=10 usage=10"
    (if n >= 2 then show_reserve (Bound.reserve l1 2 7 6) else "ok records=[(1,7,4);(2,7,6)] capacity=10 usage=10");
  obs "release.ok" "Released 4 records=[] capacity=10 usage=0" (show_release (Bound.release l1 1 7));
  obs "release.not_found" "NotFound records=[(1,7,4)] capacity=10 usage=4" (show_release (Bound.release l1 2 7));
  obs "release.not_owner" "NotOwner records=[(1,7,4)] capacity=10 usage=4" (show_release (Bound.release l1 1 8));
  obs "release.not_found_before_owner" "NotFound records=[(1,7,4)] capacity=10 usage=4" (show_release (Bound.release l1 3 8));
  obs "reserve_batch.too_many" "TooManyRequests records=[] capacity=10 usage=0"
    (show_batch (Bound.reserve_batch empty [req 1 7 1; req 2 7 1; req 3 7 1; req 4 7 1]));
  obs "reserve_batch.count_before_requests" "TooManyRequests records=[] capacity=10 usage=0"
    (show_batch (Bound.reserve_batch empty [req 1 7 0; req 2 7 0; req 3 7 0; req 4 7 0]));
  obs "reserve_batch.first_failing_index_rolls_back" "RequestFailed 1 DuplicateId records=[] capacity=10 usage=0"
    (show_batch (Bound.reserve_batch empty [req 5 7 1; req 5 7 1; req 6 7 0]));
  obs "reserve_batch.commit" "ok records=[(2,7,1)] capacity=10 usage=1" (show_batch (Bound.reserve_batch empty [req 2 7 1]));
  obs "apply_command.reserve" "RReserve ok records=[(3,9,2)] capacity=10 usage=2"
    (let (l', r) = Bound.apply_command empty (CReserve (3, 9, 2)) in show_response r ^ " " ^ show_ledger l');
  obs "apply_command.release" "RRelease NotFound records=[] capacity=10 usage=0"
    (let (l', r) = Bound.apply_command empty (CRelease (3, 9)) in show_response r ^ " " ^ show_ledger l');
  obs "apply_command.reserve_batch" "RReserveBatch ok records=[] capacity=10 usage=0"
    (let (l', r) = Bound.apply_command empty (CReserveBatch []) in show_response r ^ " " ^ show_ledger l');
  (* M reserves of ids 1..M (amount 1) on an empty ledger: the first min(M, N) succeed, the rest find storage full. *)
  let cmds = List.map (fun i -> CReserve (i, 7, 1)) (range 1 m) in
  let (states, responses) = Bound.run_commands (Bound.coq_new 1000) cmds in
  let ok = min m n in
  obs "run_commands.trace_shape"
    (Printf.sprintf "states=%d responses=%d ok=%d full=%d first_usage=0 last_usage=%d" (m + 1) m ok (m - ok) ok)
    (Printf.sprintf "states=%d responses=%d ok=%d full=%d first_usage=%d last_usage=%d"
       (List.length states) (List.length responses)
       (List.length (List.filter (fun r -> r = RReserve None) responses))
       (List.length (List.filter (fun r -> r = RReserve (Some StorageFull)) responses))
       (match states with s :: _ -> s.usage | [] -> -1)
       (match List.rev states with s :: _ -> s.usage | [] -> -1));
  let (states0, responses0) = Bound.run_commands empty [] in
  obs "run_commands.empty_preserves" "states=1 responses=0 same=true"
    (Printf.sprintf "states=%d responses=%d same=%b" (List.length states0) (List.length responses0) (states0 = [empty]))
