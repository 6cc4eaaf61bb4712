(** The allocation ledger of this example: an implementation of vkit.resource-ledger's
    ledger.source.v1 contract, as a functor over the package's parameters (N records, M commands).
    Each bound function [f] comes with its contract proof [f_spec]. *)
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
    else if mem id (records l) then (l, Some DuplicateId)
    else if Nat.leb P.max_records (length (records l)) then (l, Some StorageFull)
    else if Nat.ltb (capacity l) (usage l + amount) then (l, Some CapacityExceeded)
    else ({| records := records l ++ [mkEntry id owner amount]; capacity := capacity l; usage := usage l + amount |}, None).

  Definition release (l : ledger) (id owner : nat) : ledger * release_result :=
    match lookup id (records l) with
    | None => (l, ReleaseRejected NotFound)
    | Some e =>
        if Nat.eqb (e_owner e) owner
        then ({| records := drop id (records l); capacity := capacity l; usage := usage l - e_amount e |}, Released (e_amount e))
        else (l, ReleaseRejected NotOwner)
    end.

  Fixpoint reserve_each (l : ledger) (reqs : list request) (index : nat) : ledger * option (nat * reserve_error) :=
    match reqs with
    | [] => (l, None)
    | q :: rest =>
        match reserve l (r_id q) (r_owner q) (r_amount q) with
        | (_, Some err) => (l, Some (index, err))
        | (l', None) => reserve_each l' rest (S index)
        end
    end.

  Definition reserve_batch (l : ledger) (reqs : list request) : ledger * option batch_error :=
    if Nat.leb (length reqs) 3 then
      match reserve_each l reqs 0 with
      | (l', None) => (l', None)
      | (_, Some (index, err)) => (l, Some (RequestFailed index err))
      end
    else (l, Some TooManyRequests).

  Definition apply_command (l : ledger) (c : command) : ledger * response :=
    match c with
    | CReserve id owner amount => let (l', r) := reserve l id owner amount in (l', RReserve r)
    | CRelease id owner => let (l', r) := release l id owner in (l', RRelease r)
    | CReserveBatch reqs => let (l', r) := reserve_batch l reqs in (l', RReserveBatch r)
    end.

  Fixpoint run_commands (l : ledger) (cs : list command) : list ledger * list response :=
    match cs with
    | [] => ([l], [])
    | c :: rest =>
        let (l', r) := apply_command l c in
        let (states, responses) := run_commands l' rest in
        (l :: states, r :: responses)
    end.

  (** ---------------------------------------------------------------- proofs *)

  Lemma mem_has_id : forall id rs, mem id rs = has_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma lookup_find : forall id rs, lookup id rs = find_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma drop_filter : forall id rs, drop id rs = filter (fun x => negb (Nat.eqb (e_id x) id)) rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma reserve_model : forall l id owner amount, reserve l id owner amount = model_reserve P.max_records l id owner amount.
  Proof.
    intros. unfold reserve, model_reserve, reserve_check. rewrite mem_has_id.
    destruct (Nat.eqb amount 0), (has_id id (records l)), (Nat.leb P.max_records (length (records l))),
      (Nat.ltb (capacity l) (usage l + amount)); reflexivity.
  Qed.

  Lemma new_spec : forall cap, u32 cap -> new cap = model_new cap.
  Proof. reflexivity. Qed.

  Lemma reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records l id owner amount (reserve l id owner amount).
  Proof.
    intros. unfold reserve_post. rewrite reserve_model. unfold model_reserve.
    destruct (reserve_check P.max_records l id amount); reflexivity.
  Qed.

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

  Lemma reserve_each_model : forall reqs l i, reserve_each l reqs i = batch_go P.max_records l reqs i.
  Proof.
    intros reqs; induction reqs as [|q reqs IH]; intros l i; simpl; [reflexivity|].
    rewrite reserve_model. destruct (model_reserve P.max_records l (r_id q) (r_owner q) (r_amount q)) as [l' [err|]]; auto.
  Qed.

  Lemma reserve_batch_model : forall l reqs, reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof.
    intros l reqs. unfold reserve_batch, model_reserve_batch, batch_capacity. rewrite reserve_each_model.
    destruct (Nat.leb_spec (length reqs) 3), (Nat.ltb_spec 3 (length reqs)); try lia; reflexivity.
  Qed.

  Lemma reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof. intros. apply reserve_batch_model. Qed.

  Lemma apply_command_model : forall l c, apply_command l c = model_apply P.max_records l c.
  Proof. intros l c. destruct c; simpl; rewrite ?reserve_model, ?release_model, ?reserve_batch_model; reflexivity. Qed.

  Lemma apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c -> apply_command l c = model_apply P.max_records l c.
  Proof. intros. apply apply_command_model. Qed.

  Lemma run_commands_model : forall cs l, run_commands l cs = model_run P.max_records l cs.
  Proof. intros cs; induction cs as [|c cs IH]; intros l; simpl; [reflexivity|]. rewrite apply_command_model. destruct (model_apply P.max_records l c) as [l' r]. rewrite IH. reflexivity. Qed.

  Lemma run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
  Proof. intros. rewrite run_commands_model. apply model_run_trace. Qed.
End Allocation.
