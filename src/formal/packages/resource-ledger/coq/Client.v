(** vkit.resource-ledger 0.1.0: the expected client. It is applied, unchanged, to the candidate's
    bound module; the application typechecks only when the candidate matches [LEDGER_API] exactly.
    Every theorem calls a bound function under the accepted preconditions and concludes an owned
    postcondition; each is one obligation of the receipt (obligations.json names them). *)
From Coq Require Import List Arith Lia.
From VkitLedger Require Import Ledger Facts Contracts.
Import ListNotations.

Module ExpectedClient (P : LEDGER_PARAMS) (C : LEDGER_API P).
  Local Notation N := P.max_records.
  Local Notation M := P.command_count.

  (* new *)
  Theorem new_empty : forall cap, u32 cap ->
    inv N (C.new cap) /\ records (C.new cap) = [] /\ capacity (C.new cap) = cap /\ usage (C.new cap) = 0.
  Proof. intros cap Hcap. rewrite (C.new_spec cap Hcap). split; [apply model_new_inv; assumption | auto]. Qed.

  (* reserve *)
  Ltac reserve_post_of l id owner amount :=
    let H := fresh "Hpost" in
    match goal with
    | Hinv : inv _ l, Hi : u32 id, Ho : u32 owner, Ha : u32 amount |- _ =>
        pose proof (C.reserve_spec l id owner amount Hinv Hi Ho Ha) as H; unfold reserve_post, reserve_check in H
    end.

  Theorem reserve_rejects_zero_amount : forall l id owner,
    inv N l -> u32 id -> u32 owner -> u32 0 -> C.reserve l id owner 0 = (l, Some ZeroAmount).
  Proof. intros l id owner Hinv Hi Ho Ha. reserve_post_of l id owner 0. exact Hpost. Qed.

  Theorem reserve_rejects_duplicate_id : forall l id owner amount,
    inv N l -> u32 id -> u32 owner -> u32 amount -> 0 < amount -> In id (ids (records l)) ->
    C.reserve l id owner amount = (l, Some DuplicateId).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha Hpos Hdup. reserve_post_of l id owner amount.
    destruct (Nat.eqb_spec amount 0); [lia|]. apply has_id_true in Hdup. rewrite Hdup in Hpost. exact Hpost.
  Qed.

  Theorem reserve_rejects_full_storage : forall l id owner amount,
    inv N l -> u32 id -> u32 owner -> u32 amount -> 0 < amount -> ~ In id (ids (records l)) ->
    length (records l) = N -> C.reserve l id owner amount = (l, Some StorageFull).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha Hpos Hfresh Hfull. reserve_post_of l id owner amount.
    destruct (Nat.eqb_spec amount 0); [lia|]. apply has_id_false in Hfresh. rewrite Hfresh in Hpost.
    rewrite Hfull, Nat.leb_refl in Hpost. exact Hpost.
  Qed.

  Theorem reserve_rejects_exceeded_capacity : forall l id owner amount,
    inv N l -> u32 id -> u32 owner -> u32 amount -> 0 < amount -> ~ In id (ids (records l)) ->
    length (records l) < N -> capacity l < usage l + amount ->
    C.reserve l id owner amount = (l, Some CapacityExceeded).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha Hpos Hfresh Hroom Hover. reserve_post_of l id owner amount.
    destruct (Nat.eqb_spec amount 0); [lia|]. apply has_id_false in Hfresh. rewrite Hfresh in Hpost.
    destruct (Nat.leb_spec N (length (records l))); [lia|]. destruct (Nat.ltb_spec (capacity l) (usage l + amount)); [|lia].
    exact Hpost.
  Qed.

  Theorem reserve_inserts_exact_record : forall l id owner amount,
    inv N l -> u32 id -> u32 owner -> u32 amount -> 0 < amount -> ~ In id (ids (records l)) ->
    length (records l) < N -> usage l + amount <= capacity l ->
    C.reserve l id owner amount = (insert l (mkEntry id owner amount), None) /\
    records (fst (C.reserve l id owner amount)) = records l ++ [mkEntry id owner amount] /\
    usage (fst (C.reserve l id owner amount)) = usage l + amount /\
    inv N (fst (C.reserve l id owner amount)).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha Hpos Hfresh Hroom Hfits. reserve_post_of l id owner amount.
    destruct (Nat.eqb_spec amount 0); [lia|]. apply has_id_false in Hfresh. rewrite Hfresh in Hpost.
    destruct (Nat.leb_spec N (length (records l))); [lia|]. destruct (Nat.ltb_spec (capacity l) (usage l + amount)); [lia|].
    rewrite Hpost. simpl. split; [reflexivity|]. split; [reflexivity|]. split; [reflexivity|].
    apply insert_inv; auto; [repeat split; auto | apply has_id_false; assumption].
  Qed.

  Theorem reserve_rejection_preserves_state : forall l id owner amount,
    inv N l -> u32 id -> u32 owner -> u32 amount ->
    snd (C.reserve l id owner amount) <> None -> fst (C.reserve l id owner amount) = l.
  Proof.
    intros l id owner amount Hinv Hi Ho Ha Hrej. pose proof (C.reserve_spec l id owner amount Hinv Hi Ho Ha) as Hpost.
    unfold reserve_post in Hpost. destruct (reserve_check N l id amount); rewrite Hpost in *; simpl in *; congruence.
  Qed.

  (* release *)
  Theorem release_rejects_missing_id : forall l id owner,
    inv N l -> u32 id -> u32 owner -> ~ In id (ids (records l)) ->
    C.release l id owner = (l, ReleaseRejected NotFound).
  Proof.
    intros l id owner Hinv Hi Ho Hmiss. pose proof (C.release_spec l id owner Hinv Hi Ho) as Hpost.
    unfold release_post in Hpost. destruct (find_id id (records l)) as [e|] eqn:Hf; [|exact Hpost].
    exfalso. apply find_id_some in Hf. destruct Hf as [Hin <-]. apply Hmiss, in_map, Hin.
  Qed.

  Theorem release_rejects_other_owner : forall l id owner e,
    inv N l -> u32 id -> u32 owner -> In e (records l) -> e_id e = id -> e_owner e <> owner ->
    C.release l id owner = (l, ReleaseRejected NotOwner).
  Proof.
    intros l id owner e Hinv Hi Ho Hin Hid Hown. pose proof (C.release_spec l id owner Hinv Hi Ho) as Hpost.
    unfold release_post in Hpost. destruct Hinv as (_ & Hnd & _).
    rewrite (find_id_in id (records l) e Hnd Hin Hid) in Hpost.
    destruct (Nat.eqb_spec (e_owner e) owner); [contradiction | exact Hpost].
  Qed.

  Theorem release_removes_and_returns_amount : forall l id owner e,
    inv N l -> u32 id -> u32 owner -> In e (records l) -> e_id e = id -> e_owner e = owner ->
    C.release l id owner = (remove l e, Released (e_amount e)) /\
    ~ In id (ids (records (remove l e))) /\
    usage (remove l e) + e_amount e = usage l /\
    inv N (remove l e).
  Proof.
    intros l id owner e Hinv Hi Ho Hin Hid Hown. pose proof (C.release_spec l id owner Hinv Hi Ho) as Hpost.
    unfold release_post in Hpost. pose proof Hinv as (_ & Hnd & _ & Hsum & _).
    rewrite (find_id_in id (records l) e Hnd Hin Hid), Hown, Nat.eqb_refl in Hpost.
    split; [exact Hpost|]. split; [subst id; apply not_in_ids_filter_out|].
    split; [| apply remove_inv; assumption].
    pose proof (in_total e (records l) Hin). simpl. lia.
  Qed.

  (* reserve_batch *)
  Theorem reserve_batch_checks_count_first : forall l reqs,
    inv N l -> Forall request_ok reqs -> batch_capacity < length reqs ->
    C.reserve_batch l reqs = (l, Some TooManyRequests).
  Proof.
    intros l reqs Hinv Hok Hmany. rewrite (C.reserve_batch_spec l reqs Hinv Hok).
    unfold model_reserve_batch. destruct (Nat.ltb_spec batch_capacity (length reqs)); [reflexivity | lia].
  Qed.

  Theorem reserve_batch_in_order_first_failure : forall l reqs,
    inv N l -> Forall request_ok reqs -> length reqs <= batch_capacity ->
    match batch_go N l reqs 0 with
    | (l', None) => C.reserve_batch l reqs = (l', None)
    | (_, Some (i, err)) => C.reserve_batch l reqs = (l, Some (RequestFailed i err))
    end.
  Proof.
    intros l reqs Hinv Hok Hfew. rewrite (C.reserve_batch_spec l reqs Hinv Hok).
    unfold model_reserve_batch. destruct (Nat.ltb_spec batch_capacity (length reqs)); [lia|].
    destruct (batch_go N l reqs 0) as [l' [[i err]|]]; reflexivity.
  Qed.

  Theorem reserve_batch_all_or_nothing : forall l reqs,
    inv N l -> Forall request_ok reqs ->
    (snd (C.reserve_batch l reqs) <> None -> fst (C.reserve_batch l reqs) = l) /\
    inv N (fst (C.reserve_batch l reqs)).
  Proof.
    intros l reqs Hinv Hok. rewrite (C.reserve_batch_spec l reqs Hinv Hok).
    split; [| apply model_reserve_batch_inv; assumption].
    unfold model_reserve_batch. destruct (Nat.ltb batch_capacity (length reqs)); [reflexivity|].
    destruct (batch_go N l reqs 0) as [l' [[i err]|]]; simpl; [reflexivity | congruence].
  Qed.

  (* apply_command *)
  Theorem apply_command_matches_model : forall l c,
    inv N l -> command_ok c ->
    C.apply_command l c = model_apply N l c /\ inv N (fst (C.apply_command l c)) /\
    match c, snd (C.apply_command l c) with
    | CReserve _ _ _, RReserve _ | CRelease _ _, RRelease _ | CReserveBatch _, RReserveBatch _ => True
    | _, _ => False
    end.
  Proof.
    intros l c Hinv Hok. pose proof (C.apply_command_spec l c Hinv Hok) as Hspec.
    split; [exact Hspec|]. split; [rewrite Hspec; apply model_apply_inv; assumption|].
    destruct c as [id owner amount | id owner | reqs]; simpl; rewrite Hspec; simpl;
      [destruct (model_reserve N l id owner amount) | destruct (model_release l id owner) | destruct (model_reserve_batch N l reqs)];
      exact I.
  Qed.

  (* run_commands *)
  Theorem run_commands_trace : forall l cs,
    inv N l -> Forall command_ok cs -> length cs = M ->
    trace N l cs (fst (C.run_commands l cs)) (snd (C.run_commands l cs)) /\
    length (fst (C.run_commands l cs)) = S M /\ length (snd (C.run_commands l cs)) = M /\
    hd_error (fst (C.run_commands l cs)) = Some l /\ Forall (inv N) (fst (C.run_commands l cs)).
  Proof.
    intros l cs Hinv Hok Hlen. pose proof (C.run_commands_spec l cs Hinv Hok Hlen) as Htr.
    pose proof (trace_shape _ _ _ _ _ Htr) as (Hs & Hr & Hh).
    repeat split; auto; try lia. eapply trace_inv; eassumption.
  Qed.

  Theorem run_commands_empty_preserves : forall l,
    inv N l -> M = 0 -> C.run_commands l [] = ([l], []).
  Proof.
    intros l Hinv Hm. pose proof (C.run_commands_spec l [] Hinv (Forall_nil _) (eq_sym Hm)) as Htr.
    apply trace_empty in Htr. destruct Htr as [Hs Hr]. destruct (C.run_commands l []); simpl in *; subst; reflexivity.
  Qed.
End ExpectedClient.
