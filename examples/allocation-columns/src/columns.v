(** A columnar allocation ledger: an implementation of vkit.resource-ledger's ledger.source.v1
    contract whose state is not the owned [ledger] but parallel columns (ids, owners, amounts) with
    the capacity and the usage. It is checked against [LEDGER_REPR_API]: [view] reads the columns as
    the ordered ledger, [of_ledger] splits a ledger into columns, and every contract is proved
    through the view. Each bound function [f] comes with its contract proof [f_spec]; the conversion
    [of_ledger] comes with [of_ledger_spec] (the package's [view_of_ledger]). *)
From Coq Require Import List Arith Lia.
From VkitLedger Require Import Ledger Facts Contracts Repr.
Import ListNotations.

Module Columns (P : LEDGER_PARAMS).

  Record cols : Type := mkCols {
    c_ids : list nat; c_owners : list nat; c_amounts : list nat; c_capacity : nat; c_usage : nat }.

  Definition state := cols.

  (** The i-th record is (i-th id, i-th owner, i-th amount). *)
  Fixpoint zip3 (is os as_ : list nat) : list entry :=
    match is, os, as_ with
    | i :: is', o :: os', a :: as' => mkEntry i o a :: zip3 is' os' as'
    | _, _, _ => []
    end.

  Definition view (s : cols) : ledger := mkLedger (zip3 (c_ids s) (c_owners s) (c_amounts s)) (c_capacity s) (c_usage s).

  Definition of_ledger (l : ledger) : cols :=
    mkCols (map e_id (records l)) (map e_owner (records l)) (map e_amount (records l)) (capacity l) (usage l).

  Lemma zip3_split : forall rs, zip3 (map e_id rs) (map e_owner rs) (map e_amount rs) = rs.
  Proof. induction rs as [|[i o a] rs IH]; simpl; [reflexivity | rewrite IH; reflexivity]. Qed.

  (** The conversion lemma (LEDGER_REPR_API.view_of_ledger); it holds without the invariant. *)
  Lemma of_ledger_spec : forall l, inv P.max_records l -> view (of_ledger l) = l.
  Proof. intros [rs cap u] _. unfold view, of_ledger. simpl. rewrite zip3_split. reflexivity. Qed.

  Lemma view_of_ledger_all : forall l, view (of_ledger l) = l.
  Proof. intros [rs cap u]. unfold view, of_ledger. simpl. rewrite zip3_split. reflexivity. Qed.

  (** Columns of unequal lengths are read as their common prefix: operations start from that. *)
  Definition norm (s : cols) : cols := of_ledger (view s).

  Definition new (cap : nat) : cols := mkCols [] [] [] cap 0.
  Lemma new_spec : forall cap, u32 cap -> view (new cap) = model_new cap.
  Proof. reflexivity. Qed.

  (** reserve works on the columns: the id column for duplicates, its length for storage. *)
  Definition col_reserve (s : cols) (id owner amount : nat) : cols * option reserve_error :=
    if Nat.eqb amount 0 then (s, Some ZeroAmount)
    else if existsb (fun x => Nat.eqb x id) (c_ids s) then (s, Some DuplicateId)
    else if Nat.leb P.max_records (length (c_ids s)) then (s, Some StorageFull)
    else if Nat.ltb (c_capacity s) (c_usage s + amount) then (s, Some CapacityExceeded)
    else (mkCols (c_ids s ++ [id]) (c_owners s ++ [owner]) (c_amounts s ++ [amount]) (c_capacity s) (c_usage s + amount), None).

  Definition reserve (s : cols) (id owner amount : nat) : cols * option reserve_error :=
    col_reserve (norm s) id owner amount.

  Lemma existsb_ids : forall id rs, existsb (fun x => Nat.eqb x id) (map e_id rs) = has_id id rs.
  Proof. intros id rs. unfold has_id. induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; reflexivity]. Qed.

  Lemma reserve_view : forall s id owner amount,
    map_fst view (reserve s id owner amount) = model_reserve P.max_records (view s) id owner amount.
  Proof.
    intros s id owner amount. unfold reserve, norm, col_reserve, model_reserve, reserve_check, map_fst.
    remember (view s) as l. destruct l as [rs cap u]. simpl.
    rewrite existsb_ids, map_length.
    destruct (Nat.eqb amount 0); [simpl; rewrite view_of_ledger_all; reflexivity|].
    destruct (has_id id rs); [simpl; rewrite view_of_ledger_all; reflexivity|].
    destruct (Nat.leb P.max_records (length rs)); [simpl; rewrite view_of_ledger_all; reflexivity|].
    destruct (Nat.ltb cap (u + amount)); [simpl; rewrite view_of_ledger_all; reflexivity|].
    simpl. unfold view, insert. simpl.
    replace (map e_id rs ++ [id]) with (map e_id (rs ++ [mkEntry id owner amount])) by (rewrite map_app; reflexivity).
    replace (map e_owner rs ++ [owner]) with (map e_owner (rs ++ [mkEntry id owner amount])) by (rewrite map_app; reflexivity).
    replace (map e_amount rs ++ [amount]) with (map e_amount (rs ++ [mkEntry id owner amount])) by (rewrite map_app; reflexivity).
    rewrite zip3_split. reflexivity.
  Qed.

  Lemma reserve_spec : forall s id owner amount,
    inv P.max_records (view s) -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records (view s) id owner amount (map_fst view (reserve s id owner amount)).
  Proof.
    intros. rewrite reserve_view. unfold reserve_post, model_reserve.
    destruct (reserve_check _ _ _ _); reflexivity.
  Qed.

  (** release removes the record through the ledger view and splits the result again. *)
  Definition release (s : cols) (id owner : nat) : cols * release_result :=
    let (l', r) := model_release (view s) id owner in (of_ledger l', r).

  Lemma release_view : forall s id owner, map_fst view (release s id owner) = model_release (view s) id owner.
  Proof.
    intros s id owner. unfold release, map_fst. destruct (model_release (view s) id owner) as [l' r].
    simpl. rewrite view_of_ledger_all. reflexivity.
  Qed.

  Lemma release_spec : forall s id owner,
    inv P.max_records (view s) -> u32 id -> u32 owner ->
    release_post (view s) id owner (map_fst view (release s id owner)).
  Proof.
    intros. rewrite release_view. unfold release_post, model_release.
    destruct (find_id id (records (view s))) as [e|]; [destruct (Nat.eqb _ _)|]; reflexivity.
  Qed.

  Fixpoint batch_go_c (s : cols) (reqs : list request) (i : nat) : cols * option (nat * reserve_error) :=
    match reqs with
    | [] => (s, None)
    | q :: rest =>
        match reserve s (r_id q) (r_owner q) (r_amount q) with
        | (_, Some err) => (s, Some (i, err))
        | (s', None) => batch_go_c s' rest (S i)
        end
    end.

  Lemma batch_go_view : forall reqs s i, map_fst view (batch_go_c s reqs i) = batch_go P.max_records (view s) reqs i.
  Proof.
    induction reqs as [|q rest IH]; intros s i; [reflexivity|]. simpl.
    pose proof (reserve_view s (r_id q) (r_owner q) (r_amount q)) as Hr.
    destruct (reserve s (r_id q) (r_owner q) (r_amount q)) as [s' [err|]]; unfold map_fst in Hr; simpl in Hr; rewrite <- Hr.
    - reflexivity.
    - apply IH.
  Qed.

  Definition reserve_batch (s : cols) (reqs : list request) : cols * option batch_error :=
    if Nat.ltb batch_capacity (length reqs) then (s, Some TooManyRequests)
    else match batch_go_c s reqs 0 with
         | (s', None) => (s', None)
         | (_, Some (i, err)) => (s, Some (RequestFailed i err))
         end.

  Lemma reserve_batch_view : forall s reqs, map_fst view (reserve_batch s reqs) = model_reserve_batch P.max_records (view s) reqs.
  Proof.
    intros s reqs. unfold reserve_batch, model_reserve_batch.
    destruct (Nat.ltb batch_capacity (length reqs)); [reflexivity|].
    pose proof (batch_go_view reqs s 0) as Hb.
    destruct (batch_go_c s reqs 0) as [s' [[i err]|]]; unfold map_fst in Hb; simpl in Hb; rewrite <- Hb; reflexivity.
  Qed.

  Lemma reserve_batch_spec : forall s reqs,
    inv P.max_records (view s) -> Forall request_ok reqs ->
    map_fst view (reserve_batch s reqs) = model_reserve_batch P.max_records (view s) reqs.
  Proof. intros. apply reserve_batch_view. Qed.

  Definition apply_command (s : cols) (c : command) : cols * response :=
    match c with
    | CReserve id owner amount => let (s', r) := reserve s id owner amount in (s', RReserve r)
    | CRelease id owner => let (s', r) := release s id owner in (s', RRelease r)
    | CReserveBatch reqs => let (s', r) := reserve_batch s reqs in (s', RReserveBatch r)
    end.

  Lemma apply_view : forall s c, map_fst view (apply_command s c) = model_apply P.max_records (view s) c.
  Proof.
    intros s [id owner amount | id owner | reqs]; simpl.
    - pose proof (reserve_view s id owner amount) as H. destruct (reserve s id owner amount) as [s' r].
      unfold map_fst in *; simpl in *. rewrite <- H. reflexivity.
    - pose proof (release_view s id owner) as H. destruct (release s id owner) as [s' r].
      unfold map_fst in *; simpl in *. rewrite <- H. reflexivity.
    - pose proof (reserve_batch_view s reqs) as H. destruct (reserve_batch s reqs) as [s' r].
      unfold map_fst in *; simpl in *. rewrite <- H. reflexivity.
  Qed.

  Lemma apply_command_spec : forall s c,
    inv P.max_records (view s) -> command_ok c ->
    map_fst view (apply_command s c) = model_apply P.max_records (view s) c.
  Proof. intros. apply apply_view. Qed.

  Fixpoint run_commands (s : cols) (cs : list command) : list cols * list response :=
    match cs with
    | [] => ([s], [])
    | c :: rest =>
        let (s', r) := apply_command s c in
        let (states, responses) := run_commands s' rest in (s :: states, r :: responses)
    end.

  Lemma run_view : forall cs s,
    trace P.max_records (view s) cs (map view (fst (run_commands s cs))) (snd (run_commands s cs)).
  Proof.
    induction cs as [|c cs IH]; intros s; simpl; [constructor|].
    pose proof (apply_view s c) as H. destruct (apply_command s c) as [s' r].
    specialize (IH s'). destruct (run_commands s' cs) as [states responses]. simpl in *.
    unfold map_fst in H; simpl in H. econstructor; [symmetry; exact H | exact IH].
  Qed.

  Lemma run_commands_spec : forall s cs,
    inv P.max_records (view s) -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records (view s) cs (map view (fst (run_commands s cs))) (snd (run_commands s cs)).
  Proof. intros. apply run_view. Qed.
End Columns.
