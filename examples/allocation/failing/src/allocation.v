(** A FAILING candidate: [reserve] checks the capacity before duplicate ids, which breaks the
    rejection order of the contract. Its author proved what the code does instead (a weaker
    postcondition that says nothing about the order), so the expected client cannot be applied to it:
    the gate is BLOCKED naming the reserve contract (LEDGER_API.reserve_spec). *)
From Coq Require Import List Arith Lia.
From VkitLedger Require Import Ledger Facts Contracts.
Import ListNotations.

Module Allocation (P : LEDGER_PARAMS).

  (** Whether a record with this id is present. *)
  Fixpoint mem (id : nat) (rs : list entry) : bool :=
    match rs with
    | [] => false
    | r :: rest => if Nat.eqb (e_id r) id then true else mem id rest
    end.

  Fixpoint lookup (id : nat) (rs : list entry) : option entry :=
    match rs with
    | [] => None
    | r :: rest => if Nat.eqb (e_id r) id then Some r else lookup id rest
    end.

  Fixpoint drop (id : nat) (rs : list entry) : list entry :=
    match rs with
    | [] => []
    | r :: rest => if Nat.eqb (e_id r) id then drop id rest else r :: drop id rest
    end.

  Definition new (cap : nat) : ledger := {| records := []; capacity := cap; usage := 0 |}.

  Definition reserve (l : ledger) (id owner amount : nat) : ledger * option reserve_error :=
    if Nat.eqb amount 0 then (l, Some ZeroAmount)
    else if Nat.ltb (capacity l) (usage l + amount) then (l, Some CapacityExceeded)
    else if mem id (records l) then (l, Some DuplicateId)
    else if Nat.leb P.max_records (length (records l)) then (l, Some StorageFull)
    else ({| records := records l ++ [mkEntry id owner amount]; capacity := capacity l; usage := usage l + amount |}, None).

  Definition release (l : ledger) (id owner : nat) : ledger * release_result :=
    match lookup id (records l) with
    | None => (l, ReleaseRejected NotFound)
    | Some e =>
        if Nat.eqb (e_owner e) owner
        then ({| records := drop id (records l); capacity := capacity l; usage := usage l - e_amount e |}, Released (e_amount e))
        else (l, ReleaseRejected NotOwner)
    end.

  (* Batches, commands and traces are the package's model operations. *)
  Definition reserve_batch := model_reserve_batch P.max_records.
  Definition apply_command := model_apply P.max_records.
  Definition run_commands := model_run P.max_records.

  (** ---------------------------------------------------------------- proofs *)

  Lemma mem_has_id : forall id rs, mem id rs = has_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma lookup_find : forall id rs, lookup id rs = find_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma drop_filter : forall id rs, drop id rs = filter (fun x => negb (Nat.eqb (e_id x) id)) rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  (** A weaker postcondition than LEDGER_API.reserve_spec: rejection preserves the state, success
      inserts the record; nothing about which rejection comes first. *)
  Lemma reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    match reserve l id owner amount with
    | (l', Some _) => l' = l
    | (l', None) => l' = insert l (mkEntry id owner amount)
    end.
  Proof.
    intros. unfold reserve.
    destruct (Nat.eqb amount 0), (Nat.ltb (capacity l) (usage l + amount)), (mem id (records l)),
      (Nat.leb P.max_records (length (records l))); reflexivity.
  Qed.

  Lemma new_spec : forall cap, u32 cap -> new cap = model_new cap.
  Proof. reflexivity. Qed.

  Lemma release_model : forall l id owner, release l id owner = model_release l id owner.
  Proof.
    intros l id owner. unfold release, model_release. rewrite lookup_find.
    destruct (find_id id (records l)) as [e|] eqn:Hf; [|reflexivity].
    apply find_id_some in Hf. destruct Hf as [_ Hid].
    unfold remove. rewrite drop_filter, Hid. reflexivity.
  Qed.

  Lemma release_spec : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner -> release_post l id owner (release l id owner).
  Proof.
    intros. unfold release_post. rewrite release_model. unfold model_release.
    destruct (find_id id (records l)) as [e|]; [destruct (Nat.eqb (e_owner e) owner)|]; reflexivity.
  Qed.

  Lemma reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof. reflexivity. Qed.

  Lemma apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c -> apply_command l c = model_apply P.max_records l c.
  Proof. reflexivity. Qed.

  Lemma run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
  Proof. intros. apply model_run_trace. Qed.
End Allocation.
