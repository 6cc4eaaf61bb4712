(** vkit.resource-ledger 0.1.0, profile coq-linux-x86_64-v1: adequacy checks of the ledger model
    (issue 16, item 2). Each check is one closed theorem about the package's own definitions
    (Ledger.v), compiled against the package (`-Q <package>/coq VkitLedger`); adequacy.json lists
    them with what each establishes and its witness.

    What these establish: that reserve's precondition can be met (the contract is not vacuous), that
    the admission predicate reserve_check uses is the intended one and agrees with the
    remaining-capacity form on every valid ledger in the model's arithmetic (naturals, no wrap-around),
    that a u32 implementation must not wrap, that the capacity bound is strict in the right place, and
    that a plausible but wrong predicate is rejected by a counterexample. What they do not establish:
    that the contracts are complete (that they say everything a resource ledger should), or anything
    about an implementation's arithmetic beyond what its own contract proofs show.

    2^32 ([u32_bound]) is opaque in the package and is never computed here: the witnesses near 2^32
    are written with [u32_bound] itself, and the only fact used about it is [u32_bound_ge_16]. *)
From Coq Require Import List Arith Lia.
From VkitLedger Require Import Ledger.
Import ListNotations.

(** ---------------------------------------------------------------- small facts *)

(** The one fact about 2^32 used here, proved with [u32_bound] transparent for this lemma only. *)
Local Transparent u32_bound.
Lemma u32_bound_ge_16 : 16 <= u32_bound.
Proof.
  unfold u32_bound. change 16 with (2 ^ 4). apply Nat.pow_le_mono_r; lia.
Qed.
Local Opaque u32_bound.

Lemma u32_small : forall n, n < 16 -> u32 n.
Proof. intros n H. unfold u32. pose proof u32_bound_ge_16. lia. Qed.

(** A one-record ledger with a valid entry is valid. *)
Lemma single_inv : forall N id owner amount cap,
  1 <= N -> u32 id -> u32 owner -> 0 < amount -> u32 amount -> amount <= cap -> u32 cap ->
  inv N (mkLedger [mkEntry id owner amount] cap amount).
Proof.
  intros N id owner amount cap HN Hi Ho Hpos Ha Hle Hc. unfold inv; simpl.
  repeat split; auto; try lia.
  - constructor; [repeat split; auto | constructor].
  - constructor; [simpl; tauto | constructor].
Qed.

(** ---------------------------------------------------------------- 1. the precondition is satisfiable *)

(** The witness: with N = 3, one record (id 1, owner 7, amount 4) under capacity 10. *)
Definition witness_ledger : ledger := mkLedger [mkEntry 1 7 4] 10 4.

Lemma witness_ledger_inv : inv 3 witness_ledger.
Proof. apply single_inv; try apply u32_small; lia. Qed.

(** reserve's precondition (a valid ledger, u32 arguments) holds for the witness and the request
    (id 2, owner 7, amount 6), and reserve_check admits it: the success branch of reserve's contract
    is reachable, so the contract is not vacuous. *)
Theorem reserve_precondition_satisfiable :
  inv 3 witness_ledger /\ u32 2 /\ u32 7 /\ u32 6 /\ reserve_check 3 witness_ledger 2 6 = None.
Proof.
  split; [exact witness_ledger_inv|].
  split; [apply u32_small; lia|]. split; [apply u32_small; lia|]. split; [apply u32_small; lia|].
  reflexivity.
Qed.

(** ---------------------------------------------------------------- 2. the two admission predicates *)

(** reserve_check admits a well-formed request (non-zero amount, fresh id, room for a record)
    exactly when the total usage after it is within the capacity. *)
Theorem admission_predicate_of_reserve_check : forall N l id amount,
  0 < amount -> ~ In id (ids (records l)) -> length (records l) < N ->
  (reserve_check N l id amount = None <-> usage l + amount <= capacity l).
Proof.
  intros N l id amount Hpos Hfresh Hroom. unfold reserve_check.
  assert (Hd : has_id id (records l) = false).
  { destruct (has_id id (records l)) eqn:E; [|reflexivity].
    exfalso. apply Hfresh. unfold has_id, ids in *. apply existsb_exists in E.
    destruct E as (e & Hin & Heq). apply Nat.eqb_eq in Heq. rewrite <- Heq. apply in_map. exact Hin. }
  rewrite Hd. destruct (Nat.eqb_spec amount 0); [lia|].
  destruct (Nat.leb_spec N (length (records l))); [lia|].
  destruct (Nat.ltb_spec (capacity l) (usage l + amount)); split; intros Hc; first [reflexivity | discriminate | lia | exfalso; lia].
Qed.

(** On every valid ledger, remaining capacity (capacity - usage, truncated subtraction of naturals)
    and total usage (usage + amount, unbounded addition of naturals) admit the same amounts. It uses
    the invariant's usage <= capacity: without it, capacity - usage truncates to 0 and the two
    disagree (amount 0 on a ledger with usage above capacity). *)
Theorem admission_predicates_agree : forall N l amount,
  inv N l -> (amount <= capacity l - usage l <-> usage l + amount <= capacity l).
Proof. intros N l amount (_ & _ & _ & _ & Hle & _). lia. Qed.

(** In u32 arithmetic the remaining-capacity form is exact: on a valid ledger capacity - usage does
    not underflow and is itself a u32, so an implementation may compute it in u32. *)
Theorem remaining_capacity_exact_in_u32 : forall N l,
  inv N l -> usage l + (capacity l - usage l) = capacity l /\ u32 (capacity l - usage l).
Proof. intros N l (_ & _ & _ & _ & Hle & Hcap). unfold u32 in *. split; lia. Qed.

(** The ledger of the u32 counterexample: one record of amount 2^32 - 1 under capacity 2^32 - 1. *)
Definition wrap_ledger : ledger := mkLedger [mkEntry 1 7 (u32_bound - 1)] (u32_bound - 1) (u32_bound - 1).

(** The total-usage form does not survive u32 wrap-around: on the valid ledger above, with the
    u32 amount 1, the wrapped sum (usage + amount) mod 2^32 = 0 is within the capacity, so a
    wrapping implementation would admit the request, while the remaining capacity is 0 and the
    model (naturals, no wrap) rejects it. The model must not wrap: an implementation in u32 must
    use the remaining-capacity form or a checked (widened) addition. *)
Theorem total_usage_u32_wrap_disagrees :
  inv 3 wrap_ledger /\ u32 1 /\
  (usage wrap_ledger + 1) mod u32_bound <= capacity wrap_ledger /\
  ~ (1 <= capacity wrap_ledger - usage wrap_ledger) /\
  ~ (usage wrap_ledger + 1 <= capacity wrap_ledger).
Proof.
  pose proof u32_bound_ge_16 as Hb. unfold wrap_ledger, u32. cbn [usage capacity].
  split; [apply single_inv; unfold u32; lia|].
  split; [lia|].
  replace (u32_bound - 1 + 1) with u32_bound by lia. rewrite Nat.mod_same by lia.
  repeat split; lia.
Qed.

(** ---------------------------------------------------------------- 3. the strict-bound control *)

(** On the witness ledger (usage 4, capacity 10): amount 6 fills the capacity exactly and is admitted. *)
Theorem strict_bound_admits_exact_fill :
  inv 3 witness_ledger /\ usage witness_ledger + 6 = capacity witness_ledger /\
  reserve_check 3 witness_ledger 2 6 = None.
Proof. split; [exact witness_ledger_inv | split; reflexivity]. Qed.

(** One unit more, amount 7, is rejected for capacity (and for nothing earlier in the order). *)
Theorem strict_bound_rejects_one_more :
  inv 3 witness_ledger /\ usage witness_ledger + 7 = S (capacity witness_ledger) /\
  reserve_check 3 witness_ledger 2 7 = Some CapacityExceeded.
Proof. split; [exact witness_ledger_inv | split; reflexivity]. Qed.

(** ---------------------------------------------------------------- 4. a false equivalence, rejected *)

(** The counterexample: on the valid witness ledger, amount 6 fills the capacity exactly, so the
    admission predicate holds while the strict one (usage + amount < capacity) does not. *)
Lemma false_equivalence_counterexample :
  inv 3 witness_ledger /\ usage witness_ledger + 6 <= capacity witness_ledger /\
  ~ (usage witness_ledger + 6 < capacity witness_ledger).
Proof. split; [exact witness_ledger_inv|]. simpl. lia. Qed.

(** The claim "usage + amount < capacity is the admission predicate" is false: its negation,
    proved by the counterexample above. *)
Theorem false_equivalence_rejected :
  ~ (forall N l amount, inv N l -> (usage l + amount < capacity l <-> usage l + amount <= capacity l)).
Proof.
  intros H. destruct false_equivalence_counterexample as (Hinv & Hle & Hnlt).
  apply Hnlt. apply (H 3 witness_ledger 6 Hinv). exact Hle.
Qed.
