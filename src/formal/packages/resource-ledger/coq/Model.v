(** vkit.resource-ledger 0.1.0: the model itself satisfies the contract (a package claim: the
    contracts of Contracts.v are satisfiable for every N and M). *)
From Coq Require Import List.
From VkitLedger Require Import Ledger Facts Contracts.

Module ModelImpl (P : LEDGER_PARAMS) <: LEDGER_API P.
  Definition new := model_new.
  Lemma new_spec : forall cap, u32 cap -> new cap = model_new cap.
  Proof. reflexivity. Qed.

  Definition reserve := model_reserve P.max_records.
  Lemma reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records l id owner amount (reserve l id owner amount).
  Proof.
    intros. unfold reserve_post, reserve, model_reserve. destruct (reserve_check _ _ _ _); reflexivity.
  Qed.

  Definition release := model_release.
  Lemma release_spec : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner -> release_post l id owner (release l id owner).
  Proof.
    intros. unfold release_post, release, model_release.
    destruct (find_id id (Ledger.records l)) as [e|]; [destruct (Nat.eqb _ _)|]; reflexivity.
  Qed.

  Definition reserve_batch := model_reserve_batch P.max_records.
  Lemma reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof. reflexivity. Qed.

  Definition apply_command := model_apply P.max_records.
  Lemma apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c -> apply_command l c = model_apply P.max_records l c.
  Proof. reflexivity. Qed.

  Definition run_commands := model_run P.max_records.
  Lemma run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
  Proof. intros. apply model_run_trace. Qed.
End ModelImpl.
