(** vkit.resource-ledger 0.1.0: contract ledger.source.v1 as a module type. A candidate provides a
    module of this type: the six bound functions and, for each, a proof of its contract named
    [<binding>_spec]. Module typing compares each proof's statement with the field below up to
    conversion, so a candidate proving a stronger precondition or a weaker postcondition does not
    match, and the expected client (Client.v) cannot be applied to it. *)
From Coq Require Import List.
From VkitLedger Require Import Ledger.
Import ListNotations.

(** reserve: zero amount, duplicate id, full storage, exceeded capacity, in that order; success
    appends exactly the requested record; a rejection returns the state unchanged. *)
Definition reserve_post (N : nat) (l : ledger) (id owner amount : nat) (out : ledger * option reserve_error) : Prop :=
  match reserve_check N l id amount with
  | Some err => out = (l, Some err)
  | None => out = (insert l (mkEntry id owner amount), None)
  end.

(** release: existence before ownership; success removes the record and returns its amount; a
    rejection returns the state unchanged. *)
Definition release_post (l : ledger) (id owner : nat) (out : ledger * release_result) : Prop :=
  match find_id id (records l) with
  | None => out = (l, ReleaseRejected NotFound)
  | Some e =>
      if Nat.eqb (e_owner e) owner then out = (remove l e, Released (e_amount e))
      else out = (l, ReleaseRejected NotOwner)
  end.

Module Type LEDGER_API (P : LEDGER_PARAMS).
  Parameter new : nat -> ledger.
  Axiom new_spec : forall cap, u32 cap -> new cap = model_new cap.

  Parameter reserve : ledger -> nat -> nat -> nat -> ledger * option reserve_error.
  Axiom reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records l id owner amount (reserve l id owner amount).

  Parameter release : ledger -> nat -> nat -> ledger * release_result.
  Axiom release_spec : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner ->
    release_post l id owner (release l id owner).

  Parameter reserve_batch : ledger -> list request -> ledger * option batch_error.
  Axiom reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.

  Parameter apply_command : ledger -> command -> ledger * response.
  Axiom apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c ->
    apply_command l c = model_apply P.max_records l c.

  Parameter run_commands : ledger -> list command -> list ledger * list response.
  Axiom run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
End LEDGER_API.
