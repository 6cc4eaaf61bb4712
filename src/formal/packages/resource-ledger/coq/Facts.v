(** vkit.resource-ledger 0.1.0: facts about the model (the invariant is preserved by every model
    operation, traces have M+1 states). Candidates and the expected client may use them. *)
From Coq Require Import List Arith Bool Lia Permutation.
From VkitLedger Require Import Ledger.
Import ListNotations.

Lemma total_app : forall xs ys, total (xs ++ ys) = total xs + total ys.
Proof. induction xs as [|x xs IH]; intros ys; simpl; [reflexivity | rewrite IH; lia]. Qed.

Lemma has_id_true : forall id rs, has_id id rs = true <-> In id (ids rs).
Proof.
  intros id rs. unfold has_id, ids. rewrite existsb_exists, in_map_iff. split.
  - intros (e & Hin & Heq). apply Nat.eqb_eq in Heq. eauto.
  - intros (e & Heq & Hin). exists e. split; [assumption | apply Nat.eqb_eq; assumption].
Qed.

Lemma has_id_false : forall id rs, has_id id rs = false <-> ~ In id (ids rs).
Proof.
  intros id rs. rewrite <- has_id_true. destruct (has_id id rs); split; congruence.
Qed.

Lemma in_total : forall e rs, In e rs -> e_amount e <= total rs.
Proof. intros e rs; induction rs as [|r rs IH]; simpl; [tauto | intros [-> | H]; [lia | specialize (IH H); lia]]. Qed.

Lemma nodup_map_inj : forall (f : entry -> nat) rs x y,
  NoDup (map f rs) -> In x rs -> In y rs -> f x = f y -> x = y.
Proof.
  intros f rs; induction rs as [|r rs IH]; simpl; intros x y Hnd Hx Hy Hf; [tauto|].
  inversion Hnd as [|? ? Hnotin Hnd']; subst.
  destruct Hx as [-> | Hx], Hy as [-> | Hy]; auto.
  - exfalso; apply Hnotin; rewrite Hf; apply in_map; assumption.
  - exfalso; apply Hnotin; rewrite <- Hf; apply in_map; assumption.
Qed.

Lemma find_id_some : forall id rs e, find_id id rs = Some e -> In e rs /\ e_id e = id.
Proof.
  intros id rs e H. apply find_some in H. destruct H as [Hin Heq]. apply Nat.eqb_eq in Heq. auto.
Qed.

Lemma find_id_none : forall id rs, find_id id rs = None -> ~ In id (ids rs).
Proof.
  intros id rs H Hin. unfold ids in Hin. apply in_map_iff in Hin. destruct Hin as (e & Heq & Hin).
  eapply find_none in H; [| exact Hin]. rewrite Heq, Nat.eqb_refl in H. discriminate.
Qed.

Lemma find_id_in : forall id rs e, NoDup (ids rs) -> In e rs -> e_id e = id -> find_id id rs = Some e.
Proof.
  intros id rs e Hnd Hin Hid. destruct (find_id id rs) as [e'|] eqn:Hf.
  - apply find_id_some in Hf. destruct Hf as [Hin' Hid'].
    f_equal. eapply nodup_map_inj; [exact Hnd | exact Hin' | exact Hin | congruence].
  - exfalso. apply (find_id_none id rs Hf). subst id. apply in_map. assumption.
Qed.

Lemma filter_keeps_all : forall (f : entry -> bool) rs, (forall x, In x rs -> f x = true) -> filter f rs = rs.
Proof.
  intros f rs; induction rs as [|r rs IH]; simpl; intros H; [reflexivity|].
  rewrite (H r (or_introl eq_refl)), IH; auto.
Qed.

Lemma total_filter_out : forall rs e, NoDup (ids rs) -> In e rs ->
  total (filter (fun x => negb (Nat.eqb (e_id x) (e_id e))) rs) + e_amount e = total rs.
Proof.
  induction rs as [|r rs IH]; simpl; intros e Hnd Hin; [tauto|].
  inversion Hnd as [|? ? Hnotin Hnd']; subst.
  destruct Hin as [<- | Hin].
  - rewrite Nat.eqb_refl. simpl. rewrite filter_keeps_all; [lia|].
    intros x Hx. apply negb_true_iff, Nat.eqb_neq. intros Heq. apply Hnotin. rewrite <- Heq. apply in_map. assumption.
  - assert (Hne : e_id r <> e_id e) by (intros Heq; apply Hnotin; rewrite Heq; apply in_map; assumption).
    apply Nat.eqb_neq in Hne. rewrite Hne. simpl. specialize (IH e Hnd' Hin). lia.
Qed.

Lemma nodup_ids_filter : forall (f : entry -> bool) rs, NoDup (ids rs) -> NoDup (ids (filter f rs)).
Proof.
  intros f rs; induction rs as [|r rs IH]; simpl; intros Hnd; [constructor|].
  inversion Hnd as [|? ? Hnotin Hnd']; subst.
  destruct (f r); simpl; [|auto]. constructor; [|auto].
  intros Hin. apply Hnotin. unfold ids in *. apply in_map_iff in Hin. destruct Hin as (x & Hx & Hin).
  apply filter_In in Hin. rewrite <- Hx. apply in_map. tauto.
Qed.

Lemma length_filter_le : forall (f : entry -> bool) rs, length (filter f rs) <= length rs.
Proof. intros f rs; induction rs as [|r rs IH]; simpl; [lia | destruct (f r); simpl; lia]. Qed.

Lemma not_in_ids_filter_out : forall rs e, ~ In (e_id e) (ids (filter (fun x => negb (Nat.eqb (e_id x) (e_id e))) rs)).
Proof.
  intros rs e Hin. unfold ids in Hin. apply in_map_iff in Hin. destruct Hin as (x & Hx & Hin).
  apply filter_In in Hin. destruct Hin as [_ Hneq]. rewrite Hx, Nat.eqb_refl in Hneq. discriminate.
Qed.

(** ------------------------------------------------------------------ invariant preservation *)

Lemma model_new_inv : forall N cap, u32 cap -> inv N (model_new cap).
Proof. intros N cap Hcap. repeat split; simpl; auto; try constructor; lia. Qed.

Lemma insert_inv : forall N l e,
  inv N l -> valid_entry e -> ~ In (e_id e) (ids (records l)) -> length (records l) < N ->
  usage l + e_amount e <= capacity l -> inv N (insert l e).
Proof.
  intros N l e (Hall & Hnd & Hlen & Hsum & Hcap & Hu) He Hfresh Hroom Hfits.
  unfold insert, inv; simpl. repeat split.
  - apply Forall_app. split; [assumption | constructor; auto].
  - unfold ids. rewrite map_app. simpl. apply (Permutation_NoDup (Permutation_cons_append _ _)). constructor; assumption.
  - rewrite app_length. simpl. lia.
  - rewrite total_app. simpl. lia.
  - lia.
  - assumption.
Qed.

Lemma reserve_check_none : forall N l id amount, reserve_check N l id amount = None ->
  0 < amount /\ ~ In id (ids (records l)) /\ length (records l) < N /\ usage l + amount <= capacity l.
Proof.
  intros N l id amount H. unfold reserve_check in H.
  destruct (Nat.eqb amount 0) eqn:Hz; [discriminate|].
  destruct (has_id id (records l)) eqn:Hd; [discriminate|].
  destruct (Nat.leb N (length (records l))) eqn:Hf; [discriminate|].
  destruct (Nat.ltb (capacity l) (usage l + amount)) eqn:Hc; [discriminate|].
  apply Nat.eqb_neq in Hz. apply has_id_false in Hd. apply Nat.leb_gt in Hf. apply Nat.ltb_ge in Hc.
  repeat split; auto; lia.
Qed.

Lemma model_reserve_inv : forall N l id owner amount,
  inv N l -> u32 id -> u32 owner -> u32 amount -> inv N (fst (model_reserve N l id owner amount)).
Proof.
  intros N l id owner amount Hinv Hi Ho Ha. unfold model_reserve.
  destruct (reserve_check N l id amount) eqn:Hc; simpl; [assumption|].
  apply reserve_check_none in Hc. destruct Hc as (Hpos & Hfresh & Hroom & Hfits).
  apply insert_inv; auto. repeat split; simpl; auto.
Qed.

Lemma remove_inv : forall N l e, inv N l -> In e (records l) -> inv N (remove l e).
Proof.
  intros N l e (Hall & Hnd & Hlen & Hsum & Hcap & Hu) Hin.
  pose proof (total_filter_out (records l) e Hnd Hin) as Htot.
  unfold remove, inv; simpl. repeat split.
  - rewrite Forall_forall in *. intros x Hx. apply filter_In in Hx. apply Hall. tauto.
  - apply nodup_ids_filter. assumption.
  - pose proof (length_filter_le (fun x => negb (Nat.eqb (e_id x) (e_id e))) (records l)). lia.
  - lia.
  - lia.
  - assumption.
Qed.

Lemma model_release_inv : forall N l id owner, inv N l -> inv N (fst (model_release l id owner)).
Proof.
  intros N l id owner Hinv. unfold model_release.
  destruct (find_id id (records l)) as [e|] eqn:Hf; simpl; [|assumption].
  destruct (Nat.eqb (e_owner e) owner); simpl; [|assumption].
  apply find_id_some in Hf. apply remove_inv; tauto.
Qed.

Lemma batch_go_inv : forall N reqs l i, inv N l -> Forall request_ok reqs -> inv N (fst (batch_go N l reqs i)).
Proof.
  intros N reqs; induction reqs as [|q reqs IH]; intros l i Hinv Hok; simpl; [assumption|].
  inversion Hok as [|? ? (Hi & Ho & Ha) Hok']; subst.
  pose proof (model_reserve_inv N l (r_id q) (r_owner q) (r_amount q) Hinv Hi Ho Ha) as Hr.
  destruct (model_reserve N l (r_id q) (r_owner q) (r_amount q)) as [l' [err|]]; simpl in *; auto.
Qed.

Lemma model_reserve_batch_inv : forall N l reqs, inv N l -> Forall request_ok reqs -> inv N (fst (model_reserve_batch N l reqs)).
Proof.
  intros N l reqs Hinv Hok. unfold model_reserve_batch.
  destruct (Nat.ltb batch_capacity (length reqs)); simpl; [assumption|].
  pose proof (batch_go_inv N reqs l 0 Hinv Hok) as H.
  destruct (batch_go N l reqs 0) as [l' [[i err]|]]; simpl in *; auto.
Qed.

Lemma model_apply_inv : forall N l c, inv N l -> command_ok c -> inv N (fst (model_apply N l c)).
Proof.
  intros N l c Hinv Hok. destruct c as [id owner amount | id owner | reqs]; simpl in Hok.
  - pose proof (model_reserve_inv N l id owner amount Hinv) as H. simpl.
    destruct (model_reserve N l id owner amount) as [l' r]. simpl in *. apply H; tauto.
  - pose proof (model_release_inv N l id owner Hinv) as H. simpl.
    destruct (model_release l id owner) as [l' r]. simpl in *. assumption.
  - pose proof (model_reserve_batch_inv N l reqs Hinv Hok) as H. simpl.
    destruct (model_reserve_batch N l reqs) as [l' r]. simpl in *. assumption.
Qed.

(** ------------------------------------------------------------------ traces *)

Lemma trace_shape : forall N l cs states responses, trace N l cs states responses ->
  length states = S (length cs) /\ length responses = length cs /\ hd_error states = Some l.
Proof. intros N l cs states responses H; induction H; simpl; intuition congruence. Qed.

Lemma trace_inv : forall N l cs states responses, trace N l cs states responses ->
  inv N l -> Forall command_ok cs -> Forall (inv N) states.
Proof.
  intros N l cs states responses H; induction H as [l | l c cs l' r states responses Hstep Htr IH]; intros Hinv Hok.
  - constructor; [assumption | constructor].
  - inversion Hok as [|? ? Hc Hcs]; subst. constructor; [assumption|].
    apply IH; [| assumption]. pose proof (model_apply_inv N l c Hinv Hc) as Hi. rewrite Hstep in Hi. exact Hi.
Qed.

Lemma trace_empty : forall N l states responses, trace N l [] states responses -> states = [l] /\ responses = [].
Proof. intros N l states responses H. inversion H; subst. auto. Qed.

(** A reference execution of a command array through the model. *)
Fixpoint model_run (N : nat) (l : ledger) (cs : list command) : list ledger * list response :=
  match cs with
  | [] => ([l], [])
  | c :: rest =>
      let (l', r) := model_apply N l c in
      let (states, responses) := model_run N l' rest in
      (l :: states, r :: responses)
  end.

Lemma model_run_trace : forall N cs l, trace N l cs (fst (model_run N l cs)) (snd (model_run N l cs)).
Proof.
  intros N cs; induction cs as [|c cs IH]; intros l; simpl; [constructor|].
  destruct (model_apply N l c) as [l' r] eqn:Hstep.
  specialize (IH l'). destruct (model_run N l' cs) as [states responses]. simpl in *.
  econstructor; eassumption.
Qed.
