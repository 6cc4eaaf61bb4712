(** vkit.resource-ledger 0.1.0: transfer against an atomic two-ledger model (a package claim, proved
    here over the model; it is not part of candidate API coverage). A transfer releases reservation
    [id] of [owner] from ledger [a] and reserves the same record in ledger [b]. *)
From Coq Require Import List Arith Lia.
From VkitLedger Require Import Ledger Facts.
Import ListNotations.

Inductive transfer_error : Type :=
  | SourceReleaseFailed (err : release_error)
  | TargetReserveFailed (err : reserve_error).

(** Atomic: either both ledgers change or neither does. *)
Definition model_transfer (N : nat) (a b : ledger) (id owner : nat) : ledger * ledger * option transfer_error :=
  match model_release a id owner with
  | (_, ReleaseRejected err) => (a, b, Some (SourceReleaseFailed err))
  | (a', Released amount) =>
      match model_reserve N b id owner amount with
      | (_, Some err) => (a, b, Some (TargetReserveFailed err))
      | (b', None) => (a', b', None)
      end
  end.

Theorem transfer_success_conserves_usage : forall N a b id owner a' b',
  inv N a -> inv N b -> u32 id -> u32 owner ->
  model_transfer N a b id owner = (a', b', None) ->
  usage a' + usage b' = usage a + usage b /\ inv N a' /\ inv N b'.
Proof.
  intros N a b id owner a' b' Ha Hb Hi Ho H. unfold model_transfer, model_release in H.
  destruct (find_id id (records a)) as [e|] eqn:Hf; [|discriminate].
  destruct (Nat.eqb (e_owner e) owner) eqn:Hown; [|discriminate].
  apply find_id_some in Hf. destruct Hf as [Hin Hid].
  pose proof Ha as (Hall & _ & _ & Hsum & _).
  assert (He : valid_entry e) by (rewrite Forall_forall in Hall; apply Hall; assumption).
  destruct He as (_ & _ & _ & Hamt).
  pose proof (model_reserve_inv N b id owner (e_amount e) Hb Hi Ho Hamt) as Hbinv.
  unfold model_reserve in *. destruct (reserve_check N b id (e_amount e)) eqn:Hc; [discriminate|].
  inversion H; subst a' b'. pose proof (in_total e (records a) Hin).
  split; [simpl; lia|]. split; [apply remove_inv; assumption | exact Hbinv].
Qed.

Theorem transfer_failure_preserves_and_identifies : forall N a b id owner a' b' err,
  model_transfer N a b id owner = (a', b', Some err) ->
  a' = a /\ b' = b /\
  match err with
  | SourceReleaseFailed e => snd (model_release a id owner) = ReleaseRejected e
  | TargetReserveFailed e => exists amount,
      snd (model_release a id owner) = Released amount /\ snd (model_reserve N b id owner amount) = Some e
  end.
Proof.
  intros N a b id owner a' b' err H. unfold model_transfer in H.
  destruct (model_release a id owner) as [a1 [amount | e]] eqn:Hrel.
  - destruct (model_reserve N b id owner amount) as [b1 [e|]] eqn:Hres; [|discriminate].
    inversion H; subst. repeat split. exists amount. rewrite Hres. auto.
  - inversion H; subst. auto.
Qed.
