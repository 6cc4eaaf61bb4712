(** vkit.resource-ledger 0.1.0: represented candidates. A candidate may keep its own state type
    instead of the owned [ledger], provided it gives the same ordered ledger view: [view] reads a
    state as a ledger, [of_ledger] builds a state from a ledger, and [view_of_ledger] proves that
    viewing a built state gives the ledger back. The six contracts are those of [LEDGER_API] stated
    through the view. [ReprAdapter] turns any such module into a [LEDGER_API] module (operations on
    [ledger] through [of_ledger] and [view]), so the unchanged expected client applies to it. *)
From Coq Require Import List.
From VkitLedger Require Import Ledger Facts Contracts.
Import ListNotations.

(** The viewed result of an operation: its state through [f], its answer unchanged. *)
Definition map_fst {A B C : Type} (f : A -> B) (p : A * C) : B * C := (f (fst p), snd p).

Module Type LEDGER_REPR_API (P : LEDGER_PARAMS).
  Parameter state : Type.
  Parameter view : state -> ledger.
  Parameter of_ledger : ledger -> state.
  Axiom view_of_ledger : forall l, inv P.max_records l -> view (of_ledger l) = l.

  Parameter new : nat -> state.
  Axiom new_spec : forall cap, u32 cap -> view (new cap) = model_new cap.

  Parameter reserve : state -> nat -> nat -> nat -> state * option reserve_error.
  Axiom reserve_spec : forall s id owner amount,
    inv P.max_records (view s) -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records (view s) id owner amount (map_fst view (reserve s id owner amount)).

  Parameter release : state -> nat -> nat -> state * release_result.
  Axiom release_spec : forall s id owner,
    inv P.max_records (view s) -> u32 id -> u32 owner ->
    release_post (view s) id owner (map_fst view (release s id owner)).

  Parameter reserve_batch : state -> list request -> state * option batch_error.
  Axiom reserve_batch_spec : forall s reqs,
    inv P.max_records (view s) -> Forall request_ok reqs ->
    map_fst view (reserve_batch s reqs) = model_reserve_batch P.max_records (view s) reqs.

  Parameter apply_command : state -> command -> state * response.
  Axiom apply_command_spec : forall s c,
    inv P.max_records (view s) -> command_ok c ->
    map_fst view (apply_command s c) = model_apply P.max_records (view s) c.

  Parameter run_commands : state -> list command -> list state * list response.
  Axiom run_commands_spec : forall s cs,
    inv P.max_records (view s) -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records (view s) cs (map view (fst (run_commands s cs))) (snd (run_commands s cs)).
End LEDGER_REPR_API.

(** A represented candidate as a [LEDGER_API] module: each operation builds the state of its ledger,
    runs the candidate's operation and views the result. *)
Module ReprAdapter (P : LEDGER_PARAMS) (R : LEDGER_REPR_API P) <: LEDGER_API P.
  Definition new (cap : nat) : ledger := R.view (R.new cap).
  Lemma new_spec : forall cap, u32 cap -> new cap = model_new cap.
  Proof. intros cap H. exact (R.new_spec cap H). Qed.

  Definition reserve (l : ledger) (id owner amount : nat) : ledger * option reserve_error :=
    map_fst R.view (R.reserve (R.of_ledger l) id owner amount).
  Lemma reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records l id owner amount (reserve l id owner amount).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha. pose proof (R.view_of_ledger l Hinv) as E.
    pose proof (R.reserve_spec (R.of_ledger l) id owner amount) as H. rewrite E in H. exact (H Hinv Hi Ho Ha).
  Qed.

  Definition release (l : ledger) (id owner : nat) : ledger * release_result :=
    map_fst R.view (R.release (R.of_ledger l) id owner).
  Lemma release_spec : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner -> release_post l id owner (release l id owner).
  Proof.
    intros l id owner Hinv Hi Ho. pose proof (R.view_of_ledger l Hinv) as E.
    pose proof (R.release_spec (R.of_ledger l) id owner) as H. rewrite E in H. exact (H Hinv Hi Ho).
  Qed.

  Definition reserve_batch (l : ledger) (reqs : list request) : ledger * option batch_error :=
    map_fst R.view (R.reserve_batch (R.of_ledger l) reqs).
  Lemma reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof.
    intros l reqs Hinv Hok. pose proof (R.view_of_ledger l Hinv) as E.
    pose proof (R.reserve_batch_spec (R.of_ledger l) reqs) as H. rewrite E in H. exact (H Hinv Hok).
  Qed.

  Definition apply_command (l : ledger) (c : command) : ledger * response :=
    map_fst R.view (R.apply_command (R.of_ledger l) c).
  Lemma apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c -> apply_command l c = model_apply P.max_records l c.
  Proof.
    intros l c Hinv Hok. pose proof (R.view_of_ledger l Hinv) as E.
    pose proof (R.apply_command_spec (R.of_ledger l) c) as H. rewrite E in H. exact (H Hinv Hok).
  Qed.

  Definition run_commands (l : ledger) (cs : list command) : list ledger * list response :=
    let r := R.run_commands (R.of_ledger l) cs in (map R.view (fst r), snd r).
  Lemma run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
  Proof.
    intros l cs Hinv Hok Hlen. pose proof (R.view_of_ledger l Hinv) as E.
    pose proof (R.run_commands_spec (R.of_ledger l) cs) as H. rewrite E in H. exact (H Hinv Hok Hlen).
  Qed.
End ReprAdapter.
