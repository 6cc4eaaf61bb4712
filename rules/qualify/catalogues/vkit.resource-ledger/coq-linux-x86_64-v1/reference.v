(** vkit.resource-ledger 0.1.0, profile coq-linux-x86_64-v1: the package's reference candidate for
    mutation qualification (issue 16). It is examples/allocation/src/allocation.v with its proofs
    rewritten so that the catalogue's mutants (catalogue.json: exact find/replace edits of the code
    above the proofs, never of the proofs) are rejected because they break the contract, as far as
    practical, rather than because a script written for this exact code stopped applying.

    Bindings [Allocation.new] ... [Allocation.run_commands]; parameters max_records 3, command_count 4.

    How the proofs are written, and how far each one can be trusted to fail only on a real violation:
    - [decide_tests] splits on every [Nat.eqb]/[Nat.leb]/[Nat.ltb] test and every other [if] of the
      goal (keeping the test's meaning as a hypothesis), and each case is then closed by computation
      ([reflexivity]) or refuted by [lia]. Over code that compares naturals this is a decision
      procedure: a case that survives is a consistent combination of tests in which the candidate and
      the model answer differently, i.e. a counterexample to the contract. A boolean that is not a
      comparison (for example an added [existsb]) is split as an opaque atom, so an impossible case
      may remain and fail the proof although the code is correct: [decide_tests] is complete for
      comparisons of naturals, not for arbitrary boolean helpers.
    - ROBUST (a failure means the contract is violated, modulo the [existsb] remark above):
      [new_spec] (field by field, closed by computation or [lia]), [reserve_spec] (every branch of the
      rejection order, against the model's [reserve_check]), [release_spec] (by cases on the model's
      lookup, the missing id first, then [decide_tests]), [reserve_batch_spec] outside its loop (the
      count test by [decide_tests], then cases on the model's result), [apply_command_spec] (each
      command rewritten to the model through the other contracts, then split on the result, so a
      response tag that depends on the result is caught in every case), [run_commands_spec] outside
      its loop (cases on the command array and [decide_tests], discharging arrays whose length is not
      M by [lia]: behaviour outside the contract's precondition does not fail it).
    - NOT ROBUST (structural): the helper lemmas [mem_has_id], [lookup_find], [drop_filter] and the
      two loop inductions ([Heach] in [reserve_batch_spec], against the model's [batch_go] through
      [reserve_spec], so any reserve meeting its contract fits it; [run_go_trace] in
      [run_commands_spec]) follow the recursion of [mem], [lookup], [drop], [reserve_each] and
      [run_go] clause by clause: a mutant that changes the shape of one of those recursions (the
      catalogue's [run-commands-drop-last] adds a clause to [run_go]) fails them for a structural
      reason as well as a semantic one. The catalogue never edits [mem], [lookup] or [drop].
    Every helper whose proof depends on a bound function's code is proved inside that function's
    own [<binding>_spec] (an [assert]), so a mutant's first failure is reported in the obligation
    of the binding it breaks. *)
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

  (** The rejection order: zero amount, duplicate id, full storage, exceeded capacity. *)
  Definition reserve (l : ledger) (id owner amount : nat) : ledger * option reserve_error :=
    if Nat.eqb amount 0 then (l, Some ZeroAmount)
    else if mem id (records l) then (l, Some DuplicateId)
    else if Nat.leb P.max_records (length (records l)) then (l, Some StorageFull)
    else if Nat.ltb (capacity l) (usage l + amount) then (l, Some CapacityExceeded)
    else ({| records := records l ++ [mkEntry id owner amount]; capacity := capacity l; usage := usage l + amount |}, None).

  (** Existence before ownership. *)
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

  (** The count first; then all or nothing, reporting the zero-based index of the first failure. *)
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

  (** The loop: the states from [l] on, one more than the commands, and one response per command. *)
  Fixpoint run_go (l : ledger) (cs : list command) : list ledger * list response :=
    match cs with
    | [] => ([l], [])
    | c :: rest =>
        let (l', r) := apply_command l c in
        let (states, responses) := run_go l' rest in
        (l :: states, r :: responses)
    end.

  Definition run_commands (l : ledger) (cs : list command) : list ledger * list response := run_go l cs.

  (** ---------------------------------------------------------------- proofs *)

  (** Splits on every comparison of naturals (keeping its meaning) and every other [if] of the goal. *)
  Ltac decide_tests :=
    repeat match goal with
    | |- context [Nat.eqb ?a ?b] => destruct (Nat.eqb_spec a b)
    | |- context [Nat.leb ?a ?b] => destruct (Nat.leb_spec a b)
    | |- context [Nat.ltb ?a ?b] => destruct (Nat.ltb_spec a b)
    | |- context [if ?b then _ else _] => destruct b eqn:?
    end.

  (** Each case: equal by computation, or impossible by arithmetic. *)
  Ltac close_cases := simpl; first [reflexivity | exfalso; lia].

  Lemma mem_has_id : forall id rs, mem id rs = has_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma lookup_find : forall id rs, lookup id rs = find_id id rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma drop_filter : forall id rs, drop id rs = filter (fun x => negb (Nat.eqb (e_id x) id)) rs.
  Proof. intros id rs; induction rs as [|r rs IH]; simpl; [reflexivity | rewrite IH; destruct (Nat.eqb (e_id r) id); reflexivity]. Qed.

  Lemma new_spec : forall cap, u32 cap -> new cap = model_new cap.
  Proof. intros cap Hcap. unfold new, model_new. f_equal; first [reflexivity | lia]. Qed.

  Lemma reserve_spec : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve_post P.max_records l id owner amount (reserve l id owner amount).
  Proof.
    intros l id owner amount Hinv Hi Ho Ha. pose proof Hinv as (_ & _ & Hlen & Hsum & Hfits & Hcap).
    unfold reserve_post, reserve_check, reserve, insert. rewrite mem_has_id. decide_tests; close_cases.
  Qed.

  (** [reserve] is the model's reserve on every valid ledger (from its contract alone). *)
  Lemma reserve_model : forall l id owner amount,
    inv P.max_records l -> u32 id -> u32 owner -> u32 amount ->
    reserve l id owner amount = model_reserve P.max_records l id owner amount.
  Proof.
    intros l id owner amount Hinv Hi Ho Ha. pose proof (reserve_spec l id owner amount Hinv Hi Ho Ha) as H.
    unfold reserve_post in H. unfold model_reserve. destruct (reserve_check P.max_records l id amount); exact H.
  Qed.

  Lemma release_spec : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner -> release_post l id owner (release l id owner).
  Proof.
    intros l id owner Hinv Hi Ho. unfold release_post, release. rewrite lookup_find.
    destruct (find_id id (records l)) as [e|] eqn:Hf; cycle 1.
    - (* no record with this id: NotFound, whatever else the code tests *)
      decide_tests; close_cases.
    - apply find_id_some in Hf. destruct Hf as [Hin Hid]. subst id. unfold remove. rewrite drop_filter.
      decide_tests; close_cases.
  Qed.

  Lemma release_model : forall l id owner,
    inv P.max_records l -> u32 id -> u32 owner -> release l id owner = model_release l id owner.
  Proof.
    intros l id owner Hinv Hi Ho. pose proof (release_spec l id owner Hinv Hi Ho) as H.
    unfold release_post in H. unfold model_release.
    destruct (find_id id (records l)) as [e|]; [destruct (Nat.eqb (e_owner e) owner)|]; exact H.
  Qed.

  Lemma reserve_batch_spec : forall l reqs,
    inv P.max_records l -> Forall request_ok reqs ->
    reserve_batch l reqs = model_reserve_batch P.max_records l reqs.
  Proof.
    intros l reqs Hinv Hok.
    (* The loop is the model's, request by request, on every valid ledger. *)
    assert (Heach : forall qs l0 i, inv P.max_records l0 -> Forall request_ok qs ->
              reserve_each l0 qs i = batch_go P.max_records l0 qs i).
    { intros qs; induction qs as [|q qs IH]; intros l0 i Hinv0 Hok0; simpl; [reflexivity|].
      inversion Hok0 as [|? ? (Hi & Ho & Ha) Hok']; subst.
      rewrite (reserve_model l0 (r_id q) (r_owner q) (r_amount q) Hinv0 Hi Ho Ha).
      pose proof (model_reserve_inv P.max_records l0 (r_id q) (r_owner q) (r_amount q) Hinv0 Hi Ho Ha) as Hinv1.
      destruct (model_reserve P.max_records l0 (r_id q) (r_owner q) (r_amount q)) as [l1 [err|]];
        simpl in Hinv1; [reflexivity | apply IH; assumption]. }
    unfold reserve_batch, model_reserve_batch, batch_capacity. rewrite !Heach by assumption.
    decide_tests; try (exfalso; lia);
      destruct (batch_go P.max_records l reqs 0) as [l' [[i err]|]]; reflexivity.
  Qed.

  Lemma apply_command_spec : forall l c,
    inv P.max_records l -> command_ok c -> apply_command l c = model_apply P.max_records l c.
  Proof.
    intros l c Hinv Hok. destruct c as [id owner amount | id owner | reqs]; simpl in Hok; unfold apply_command.
    - destruct Hok as (Hi & Ho & Ha). rewrite (reserve_model l id owner amount Hinv Hi Ho Ha). simpl.
      destruct (model_reserve P.max_records l id owner amount) as [l' r]; destruct r; reflexivity.
    - destruct Hok as (Hi & Ho). rewrite (release_model l id owner Hinv Hi Ho). simpl.
      destruct (model_release l id owner) as [l' r]; destruct r; reflexivity.
    - rewrite (reserve_batch_spec l reqs Hinv Hok). simpl.
      destruct (model_reserve_batch P.max_records l reqs) as [l' r]; destruct r; reflexivity.
  Qed.

  Lemma run_commands_spec : forall l cs,
    inv P.max_records l -> Forall command_ok cs -> length cs = P.command_count ->
    trace P.max_records l cs (fst (run_commands l cs)) (snd (run_commands l cs)).
  Proof.
    intros l cs Hinv Hok Hlen.
    (* The loop is the model's trace from any valid ledger (structural: follows run_go's clauses). *)
    assert (run_go_trace : forall cs0 l0, inv P.max_records l0 -> Forall command_ok cs0 ->
              trace P.max_records l0 cs0 (fst (run_go l0 cs0)) (snd (run_go l0 cs0))).
    { intros cs0; induction cs0 as [|c cs0 IH]; intros l0 Hinv0 Hok0; simpl; [constructor|].
      inversion Hok0 as [|? ? Hc Hcs]; subst.
      rewrite (apply_command_spec l0 c Hinv0 Hc).
      pose proof (model_apply_inv P.max_records l0 c Hinv0 Hc) as Hinv1.
      destruct (model_apply P.max_records l0 c) as [l1 r] eqn:Hstep. simpl in Hinv1.
      specialize (IH l1 Hinv1 Hcs). destruct (run_go l1 cs0) as [states responses]. simpl in *.
      econstructor; eassumption. }
    unfold run_commands. destruct cs as [|c cs']; simpl in Hlen; decide_tests; try (exfalso; lia);
      apply run_go_trace; assumption.
  Qed.
End Allocation.
