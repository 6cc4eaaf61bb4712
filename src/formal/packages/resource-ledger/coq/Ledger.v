(** vkit.resource-ledger 0.1.0, Coq profile: the owned model of a resource ledger.

    A ledger holds reservation records (id, owner, amount) under a capacity, with a cached usage.
    Every u32 of the reference is a natural number below [u32_bound] (2^32); the record bound N and
    the command-array length M are module parameters ([LEDGER_PARAMS]). The model operations here
    are the meaning of the six bindings; [Contracts.v] states what a candidate must prove about its
    own functions, and [Client.v] is the expected client that uses them. *)
From Coq Require Import List Arith Lia.
Import ListNotations.

(** 2^32, kept opaque so that proofs treat it as a symbol and never unfold a large numeral. *)
Definition u32_bound : nat := 2 ^ 32.
Global Opaque u32_bound.
Definition u32 (n : nat) : Prop := n < u32_bound.

(** N (maximum number of records, positive) and M (length of a command array). *)
Module Type LEDGER_PARAMS.
  Parameter max_records : nat.
  Axiom max_records_pos : 0 < max_records.
  Parameter command_count : nat.
End LEDGER_PARAMS.

Record entry : Type := mkEntry { e_id : nat; e_owner : nat; e_amount : nat }.

(** The ordered view of a ledger: records in insertion order, the capacity and the cached usage. *)
Record ledger : Type := mkLedger { records : list entry; capacity : nat; usage : nat }.

Fixpoint total (rs : list entry) : nat :=
  match rs with
  | [] => 0
  | r :: rest => e_amount r + total rest
  end.

Definition ids (rs : list entry) : list nat := map e_id rs.

Definition valid_entry (e : entry) : Prop :=
  u32 (e_id e) /\ u32 (e_owner e) /\ 0 < e_amount e /\ u32 (e_amount e).

(** The invariant: positive (u32) amounts, unique ids, at most N records, usage equal to the total
    of the amounts, usage at most capacity, capacity a u32. *)
Definition inv (N : nat) (l : ledger) : Prop :=
  Forall valid_entry (records l) /\
  NoDup (ids (records l)) /\
  length (records l) <= N /\
  usage l = total (records l) /\
  usage l <= capacity l /\
  u32 (capacity l).

(** ------------------------------------------------------------------ new *)

Definition model_new (cap : nat) : ledger := mkLedger [] cap 0.

(** ------------------------------------------------------------------ reserve *)

Inductive reserve_error : Type := ZeroAmount | DuplicateId | StorageFull | CapacityExceeded.

Definition has_id (id : nat) (rs : list entry) : bool := existsb (fun e => Nat.eqb (e_id e) id) rs.

(** The rejection order of the reference: zero amount, duplicate id, full storage, exceeded capacity. *)
Definition reserve_check (N : nat) (l : ledger) (id amount : nat) : option reserve_error :=
  if Nat.eqb amount 0 then Some ZeroAmount
  else if has_id id (records l) then Some DuplicateId
  else if Nat.leb N (length (records l)) then Some StorageFull
  else if Nat.ltb (capacity l) (usage l + amount) then Some CapacityExceeded
  else None.

(** Success appends exactly the requested record and adds its amount to the usage. *)
Definition insert (l : ledger) (e : entry) : ledger :=
  mkLedger (records l ++ [e]) (capacity l) (usage l + e_amount e).

Definition model_reserve (N : nat) (l : ledger) (id owner amount : nat) : ledger * option reserve_error :=
  match reserve_check N l id amount with
  | Some err => (l, Some err)
  | None => (insert l (mkEntry id owner amount), None)
  end.

(** ------------------------------------------------------------------ release *)

Inductive release_error : Type := NotFound | NotOwner.
Inductive release_result : Type := Released (amount : nat) | ReleaseRejected (err : release_error).

Definition find_id (id : nat) (rs : list entry) : option entry := find (fun e => Nat.eqb (e_id e) id) rs.

Definition remove (l : ledger) (e : entry) : ledger :=
  mkLedger (filter (fun x => negb (Nat.eqb (e_id x) (e_id e))) (records l)) (capacity l) (usage l - e_amount e).

(** Existence is checked before ownership. *)
Definition model_release (l : ledger) (id owner : nat) : ledger * release_result :=
  match find_id id (records l) with
  | None => (l, ReleaseRejected NotFound)
  | Some e => if Nat.eqb (e_owner e) owner then (remove l e, Released (e_amount e))
              else (l, ReleaseRejected NotOwner)
  end.

(** ------------------------------------------------------------------ reserve_batch *)

Definition batch_capacity : nat := 3.

Record request : Type := mkRequest { r_id : nat; r_owner : nat; r_amount : nat }.

Inductive batch_error : Type := TooManyRequests | RequestFailed (index : nat) (err : reserve_error).

(** Requests are reserved in order; the first rejection stops with its (zero-based) index. *)
Fixpoint batch_go (N : nat) (l : ledger) (reqs : list request) (i : nat) : ledger * option (nat * reserve_error) :=
  match reqs with
  | [] => (l, None)
  | q :: rest =>
      match model_reserve N l (r_id q) (r_owner q) (r_amount q) with
      | (_, Some err) => (l, Some (i, err))
      | (l', None) => batch_go N l' rest (S i)
      end
  end.

(** The count is checked first; a failure anywhere keeps the original state (all or nothing). *)
Definition model_reserve_batch (N : nat) (l : ledger) (reqs : list request) : ledger * option batch_error :=
  if Nat.ltb batch_capacity (length reqs) then (l, Some TooManyRequests)
  else match batch_go N l reqs 0 with
       | (l', None) => (l', None)
       | (_, Some (i, err)) => (l, Some (RequestFailed i err))
       end.

(** ------------------------------------------------------------------ commands *)

Inductive command : Type :=
  | CReserve (id owner amount : nat)
  | CRelease (id owner : nat)
  | CReserveBatch (reqs : list request).

(** A response is tagged with the operation it answers. *)
Inductive response : Type :=
  | RReserve (r : option reserve_error)
  | RRelease (r : release_result)
  | RReserveBatch (r : option batch_error).

Definition model_apply (N : nat) (l : ledger) (c : command) : ledger * response :=
  match c with
  | CReserve id owner amount => let (l', r) := model_reserve N l id owner amount in (l', RReserve r)
  | CRelease id owner => let (l', r) := model_release l id owner in (l', RRelease r)
  | CReserveBatch reqs => let (l', r) := model_reserve_batch N l reqs in (l', RReserveBatch r)
  end.

(** [trace N l cs states responses]: [states] has one more element than [cs], starts at [l], and
    every step is the model's step with its response. *)
Inductive trace (N : nat) : ledger -> list command -> list ledger -> list response -> Prop :=
  | trace_nil : forall l, trace N l [] [l] []
  | trace_cons : forall l c cs l' r states responses,
      model_apply N l c = (l', r) ->
      trace N l' cs states responses ->
      trace N l (c :: cs) (l :: states) (r :: responses).

(** ------------------------------------------------------------------ accepted preconditions *)

Definition request_ok (q : request) : Prop := u32 (r_id q) /\ u32 (r_owner q) /\ u32 (r_amount q).

Definition command_ok (c : command) : Prop :=
  match c with
  | CReserve id owner amount => u32 id /\ u32 owner /\ u32 amount
  | CRelease id owner => u32 id /\ u32 owner
  | CReserveBatch reqs => Forall request_ok reqs
  end.
