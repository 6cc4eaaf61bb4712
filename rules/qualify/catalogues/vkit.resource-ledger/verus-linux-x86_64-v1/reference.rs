// The reference candidate of vkit.resource-ledger 0.1.0 under `verus-linux-x86_64-v1`: the known-good
// implementation of the six bindings that the mutation catalogue (catalogue.json beside this file)
// edits, one small named change per mutant.
//
// NEVER CHECKED: Verus cannot be installed on the machine that wrote this file, exactly like the
// package's own Verus sources (../../../packages/resource-ledger/verus/README.md). The procedure
// that would check it is complete and reports BLOCKED here, naming the missing assets; expect proof
// hints to need work the first time it runs. Do not read anything here as verified.
//
// A candidate is a library crate checked against the owned library `vkit_ledger` (its state, view,
// invariant, command model and contracts); the catalogue binds each binding to the function of the
// same name at the crate root. Every function states the owned postcondition as its own `ensures`, so
// a mutant fails in its own crate (step `candidate`) or, failing that, in the expected client.
#![allow(unused)]
use vstd::prelude::*;
use vkit_ledger::{Ledger, LedgerView, Record, records_of, total, BATCH_CAPACITY};
use vkit_ledger::model::*;

verus! {

/* ----------------------------------------------------------------------------------------- new */

pub fn new<const N: usize>(slots: [Option<Record>; N], capacity: u32) -> (l: Ledger<N>)
    requires new_pre::<N>(capacity),
    ensures new_post::<N>(capacity, l),
{
    let mut slots = slots;
    let mut i: usize = 0;
    while i < N
        invariant
            i <= N,
            forall|j: int| 0 <= j < i ==> slots@[j].is_none(),
        decreases N - i,
    {
        slots.set(i, None);
        i += 1;
    }
    proof { lemma_no_records(slots@); }
    Ledger { slots, capacity, usage: 0 }
}

/* ------------------------------------------------------------------------------------- reserve */

/// The slot holding `id`, if any (ids are unique under the invariant).
fn slot_of<const N: usize>(l: &Ledger<N>, id: u32) -> (r: Option<usize>)
    requires l.inv(),
    ensures
        match r {
            Some(i) => i < N && l.slots@[i as int].is_some() && l.slots@[i as int].unwrap().id == id,
            None => !l.view().records.contains_key(id),
        },
{
    let mut i: usize = 0;
    while i < N
        invariant
            l.inv(),
            i <= N,
            forall|j: int| 0 <= j < i ==> l.slots@[j].is_none() || l.slots@[j].unwrap().id != id,
        decreases N - i,
    {
        match l.slots[i] {
            Some(rec) => if rec.id == id { return Some(i); },
            None => {},
        }
        i += 1;
    }
    proof { lemma_absent(l.slots@, id); }
    None
}

/// An empty slot, if any; none means the ledger holds N records.
fn empty_slot<const N: usize>(l: &Ledger<N>) -> (r: Option<usize>)
    requires l.inv(),
    ensures
        match r {
            Some(i) => i < N && l.slots@[i as int].is_none(),
            None => l.view().records.dom().len() >= N,
        },
{
    let mut i: usize = 0;
    while i < N
        invariant
            l.inv(),
            i <= N,
            forall|j: int| 0 <= j < i ==> l.slots@[j].is_some(),
        decreases N - i,
    {
        if l.slots[i].is_none() {
            return Some(i);
        }
        i += 1;
    }
    proof { lemma_every_slot_used(l); }
    None
}

pub fn reserve<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32, amount: u32) -> (r: Result<(), ReserveError>)
    requires reserve_pre::<N>(*old(l)),
    ensures reserve_post::<N>(*old(l), *final(l), id, owner, amount, r),
{
    if amount == 0 {
        return Err(ReserveError::ZeroAmount);
    }
    if slot_of(l, id).is_some() {
        return Err(ReserveError::DuplicateId);
    }
    let free = empty_slot(l);
    if free.is_none() {
        return Err(ReserveError::Full);
    }
    if l.usage as u64 + amount as u64 > l.capacity as u64 {
        return Err(ReserveError::OverCapacity);
    }
    let slot = free.unwrap();
    let ghost before = l.slots@;
    l.slots.set(slot, Some(Record { id, owner, amount }));
    l.usage = l.usage + amount;
    proof { lemma_put(before, slot as int, Record { id, owner, amount }); }
    Ok(())
}

/* ------------------------------------------------------------------------------------- release */

pub fn release<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32) -> (r: Result<u32, ReleaseError>)
    requires release_pre::<N>(*old(l)),
    ensures release_post::<N>(*old(l), *final(l), id, owner, r),
{
    let found = slot_of(l, id);
    if found.is_none() {
        return Err(ReleaseError::NotFound);
    }
    let i = found.unwrap();
    let rec = l.slots[i].unwrap();
    proof { lemma_present(l.slots@, i as int); }
    if rec.owner != owner {
        return Err(ReleaseError::NotOwner);
    }
    let ghost before = l.slots@;
    l.slots.set(i, None);
    l.usage = l.usage - rec.amount;
    proof { lemma_take(before, i as int); }
    Ok(rec.amount)
}

/* ------------------------------------------------------------------------------- reserve_batch */

/// Count first, then each request in order on the live ledger; the first failure restores the saved
/// slots and usage (all or nothing) and names its zero-based index.
pub fn reserve_batch<const N: usize>(l: &mut Ledger<N>, reqs: &[Request]) -> (r: Result<(), BatchError>)
    requires batch_pre::<N>(*old(l)),
    ensures batch_post::<N>(*old(l), *final(l), reqs@, r),
{
    if reqs.len() > BATCH_CAPACITY {
        return Err(BatchError::TooMany);
    }
    let saved_slots = l.slots;
    let saved_usage = l.usage;
    let ghost start = l.view();
    let mut i: usize = 0;
    while i < reqs.len()
        invariant
            l.inv(),
            i <= reqs.len(),
            saved_slots@ == old(l).slots@,
            saved_usage == old(l).usage,
            start == old(l).view(),
            batch_from(start, reqs@, 0) == batch_from(l.view(), reqs@, i as int),
        decreases reqs.len() - i,
    {
        let q = reqs[i];
        match reserve(l, q.id, q.owner, q.amount) {
            Ok(()) => {},
            Err(e) => {
                l.slots = saved_slots;
                l.usage = saved_usage;
                return Err(BatchError::Failed { index: i, error: e });
            },
        }
        i += 1;
    }
    Ok(())
}

/* ------------------------------------------------------------------------------- apply_command */

pub fn apply_command<const N: usize>(l: &mut Ledger<N>, c: Command) -> (r: Response)
    requires apply_pre::<N>(*old(l)),
    ensures apply_post::<N>(*old(l), *final(l), c, r),
{
    match c {
        Command::Reserve { id, owner, amount } => Response::Reserved(reserve(l, id, owner, amount)),
        Command::Release { id, owner } => Response::Released(release(l, id, owner)),
    }
}

/* -------------------------------------------------------------------------------- run_commands */

/// Each command in order through apply_command; the ghost trace is the model's over the prefix run so far.
pub fn run_commands<const N: usize, const M: usize>(l: &mut Ledger<N>, cmds: [Command; M]) -> (rs: Vec<Response>)
    requires run_pre::<N>(*old(l)),
    ensures run_post::<N, M>(*old(l), *final(l), cmds@, rs@),
{
    let ghost v0 = l.view();
    let mut rs: Vec<Response> = Vec::new();
    let mut i: usize = 0;
    while i < M
        invariant
            l.inv(),
            i <= M,
            v0 == old(l).view(),
            cmds@.len() == M,
            rs@.len() == i,
            trace_model(v0, cmds@.subrange(0, i as int)).last() == l.view(),
            responses_model(v0, cmds@.subrange(0, i as int)) == rs@,
        decreases M - i,
    {
        proof { lemma_prefix_step(v0, cmds@, i as int); }
        let r = apply_command(l, cmds[i]);
        rs.push(r);
        i += 1;
    }
    proof { lemma_run_post(v0, cmds@, rs@, l.view()); }
    rs
}

/* ------------------------------------------------------------------------------------- lemmas */

proof fn lemma_no_records(s: Seq<Option<Record>>)
    requires forall|j: int| 0 <= j < s.len() ==> s[j].is_none(),
    ensures records_of(s) == Map::<u32, (u32, u32)>::empty(), total(records_of(s)) == 0,
    decreases s.len(),
{
    if s.len() > 0 { lemma_no_records(s.drop_last()); }
}

proof fn lemma_absent(s: Seq<Option<Record>>, id: u32)
    requires forall|j: int| 0 <= j < s.len() ==> s[j].is_none() || s[j].unwrap().id != id,
    ensures !records_of(s).contains_key(id),
    decreases s.len(),
{
    if s.len() > 0 { lemma_absent(s.drop_last(), id); }
}

proof fn lemma_present(s: Seq<Option<Record>>, i: int)
    requires
        0 <= i < s.len(),
        s[i].is_some(),
        forall|a: int, b: int| 0 <= a < s.len() && 0 <= b < s.len() && a != b && s[a].is_some() && s[b].is_some()
            ==> s[a].unwrap().id != s[b].unwrap().id,
    ensures
        records_of(s).contains_key(s[i].unwrap().id),
        records_of(s)[s[i].unwrap().id] == (s[i].unwrap().owner, s[i].unwrap().amount),
    decreases s.len(),
{
    if i < s.len() - 1 { lemma_present(s.drop_last(), i); }
}

proof fn lemma_every_slot_used<const N: usize>(l: &Ledger<N>)
    requires l.inv(), forall|j: int| 0 <= j < N ==> l.slots@[j].is_some(),
    ensures l.view().records.dom().len() >= N,
{
    assert forall|j: int| 0 <= j < N implies l.view().records.contains_key(l.slots@[j].unwrap().id) by {
        lemma_present(l.slots@, j);
    }
    let ids = |j: int| l.slots@[j].unwrap().id;
    vstd::set_lib::lemma_int_range(0, N as int);
    vstd::set_lib::lemma_map_size(vstd::set_lib::set_int_range(0, N as int), l.view().records.dom(), ids);
}

proof fn lemma_put(s: Seq<Option<Record>>, i: int, r: Record)
    requires 0 <= i < s.len(), s[i].is_none(), !records_of(s).contains_key(r.id), records_of(s).dom().finite(),
    ensures
        records_of(s.update(i, Some(r))) == records_of(s).insert(r.id, (r.owner, r.amount)),
        total(records_of(s).insert(r.id, (r.owner, r.amount))) == total(records_of(s)) + r.amount,
    decreases s.len(),
{
    if i < s.len() - 1 {
        lemma_put(s.drop_last(), i, r);
        assert(s.update(i, Some(r)).drop_last() == s.drop_last().update(i, Some(r)));
    } else {
        assert(s.update(i, Some(r)).drop_last() == s.drop_last());
    }
    lemma_sum_insert(records_of(s), r.id, (r.owner, r.amount));
}

proof fn lemma_take(s: Seq<Option<Record>>, i: int)
    requires
        0 <= i < s.len(),
        s[i].is_some(),
        records_of(s).dom().finite(),
        forall|a: int, b: int| 0 <= a < s.len() && 0 <= b < s.len() && a != b && s[a].is_some() && s[b].is_some()
            ==> s[a].unwrap().id != s[b].unwrap().id,
    ensures
        records_of(s.update(i, None)) == records_of(s).remove(s[i].unwrap().id),
        total(records_of(s).remove(s[i].unwrap().id)) + s[i].unwrap().amount == total(records_of(s)),
    decreases s.len(),
{
    if i < s.len() - 1 {
        lemma_take(s.drop_last(), i);
        assert(s.update(i, None).drop_last() == s.drop_last().update(i, None));
    } else {
        lemma_absent(s.drop_last(), s[i].unwrap().id);
        assert(s.update(i, None).drop_last() == s.drop_last());
    }
    lemma_present(s, i);
    let k = s[i].unwrap().id;
    lemma_sum_insert(records_of(s).remove(k), k, (s[i].unwrap().owner, s[i].unwrap().amount));
    assert(records_of(s).remove(k).insert(k, (s[i].unwrap().owner, s[i].unwrap().amount)) == records_of(s));
}

/// The sum over a finite map grows by the value's amount when a fresh key is inserted.
proof fn lemma_sum_insert(m: Map<u32, (u32, u32)>, k: u32, v: (u32, u32))
    requires m.dom().finite(), !m.contains_key(k),
    ensures total(m.insert(k, v)) == total(m) + v.1,
    decreases m.dom().len(),
{
    let n = m.insert(k, v);
    let c = n.dom().choose();
    assert(n.dom().contains(k));
    if c != k {
        assert(m.contains_key(c));
        lemma_sum_insert(m.remove(c), k, v);
        assert(n.remove(c) == m.remove(c).insert(k, v));
        lemma_sum_any(m, c);
    } else {
        assert(n.remove(c) == m);
    }
}

/// The sum does not depend on which key `choose` takes first.
proof fn lemma_sum_any(m: Map<u32, (u32, u32)>, k: u32)
    requires m.dom().finite(), m.contains_key(k),
    ensures total(m) == m[k].1 + total(m.remove(k)),
    decreases m.dom().len(),
{
    let c = m.dom().choose();
    if c != k {
        lemma_sum_any(m.remove(c), k);
        lemma_sum_any(m.remove(k), c);
        assert(m.remove(c).remove(k) == m.remove(k).remove(c));
    }
}

/// One more command of the prefix: the model's trace and responses over `cmds[0..i+1]` extend those over `cmds[0..i]`.
proof fn lemma_prefix_step(v: LedgerView, cmds: Seq<Command>, i: int)
    requires 0 <= i < cmds.len(),
    ensures
        cmds.subrange(0, i + 1).drop_last() == cmds.subrange(0, i),
        cmds.subrange(0, i + 1).last() == cmds[i],
        trace_model(v, cmds.subrange(0, i + 1))
            == trace_model(v, cmds.subrange(0, i)).push(command_model(trace_model(v, cmds.subrange(0, i)).last(), cmds[i]).0),
        responses_model(v, cmds.subrange(0, i + 1))
            == responses_model(v, cmds.subrange(0, i)).push(command_model(trace_model(v, cmds.subrange(0, i)).last(), cmds[i]).1),
{
    assert(cmds.subrange(0, i + 1).drop_last() =~= cmds.subrange(0, i));
}

/// The whole run against the model: every state of the M+1 trace and every response, in order.
proof fn lemma_run_post(v: LedgerView, cmds: Seq<Command>, rs: Seq<Response>, last: LedgerView)
    requires
        trace_model(v, cmds.subrange(0, cmds.len() as int)).last() == last,
        responses_model(v, cmds.subrange(0, cmds.len() as int)) == rs,
    ensures
        trace_model(v, cmds).len() == cmds.len() + 1,
        trace_model(v, cmds)[0] == v,
        trace_model(v, cmds)[cmds.len() as int] == last,
        rs.len() == cmds.len(),
        forall|i: int| 0 <= i < cmds.len()
            ==> command_model(trace_model(v, cmds)[i], cmds[i]) == (trace_model(v, cmds)[i + 1], rs[i]),
    decreases cmds.len(),
{
    assert(cmds.subrange(0, cmds.len() as int) =~= cmds);
    lemma_trace_shape(v, cmds);
    lemma_responses_shape(v, cmds);
}

proof fn lemma_trace_shape(v: LedgerView, cmds: Seq<Command>)
    ensures
        trace_model(v, cmds).len() == cmds.len() + 1,
        trace_model(v, cmds)[0] == v,
        forall|i: int| 0 <= i < cmds.len()
            ==> trace_model(v, cmds)[i + 1] == command_model(trace_model(v, cmds)[i], cmds[i]).0,
    decreases cmds.len(),
{
    if cmds.len() > 0 { lemma_trace_shape(v, cmds.drop_last()); }
}

proof fn lemma_responses_shape(v: LedgerView, cmds: Seq<Command>)
    ensures
        responses_model(v, cmds).len() == cmds.len(),
        forall|i: int| 0 <= i < cmds.len()
            ==> responses_model(v, cmds)[i] == command_model(trace_model(v, cmds)[i], cmds[i]).1,
    decreases cmds.len(),
{
    if cmds.len() > 0 {
        lemma_responses_shape(v, cmds.drop_last());
        lemma_trace_shape(v, cmds);
        lemma_trace_shape(v, cmds.drop_last());
    }
}

} // verus!
