// The owned reference implementation of reserve and release (NEVER CHECKED: see ../README.md).
// Used by transfer and SharedLedger, which are package contracts; candidates provide their own
// implementations of the six bindings. Proof bodies state the intended lemmas; they have not been
// run through Verus and may need more hints.
use vstd::prelude::*;
use crate::{Ledger, Record, records_of, total};
use crate::model::*;

verus! {

fn find<const N: usize>(l: &Ledger<N>, id: u32) -> (r: Option<usize>)
    requires l.inv(),
    ensures
        match r {
            Some(i) => i < N && l.slots@[i as int].is_some() && l.slots@[i as int].unwrap().id == id,
            None => !l.view().records.contains_key(id),
        },
{
    let mut i = 0;
    while i < N
        invariant
            l.inv(),
            i <= N,
            forall|j: int| 0 <= j < i ==> l.slots@[j].is_none() || l.slots@[j].unwrap().id != id,
        decreases N - i,
    {
        if let Some(rec) = l.slots[i] {
            if rec.id == id {
                return Some(i);
            }
        }
        i += 1;
    }
    proof { lemma_absent(l.slots@, id); }
    None
}

fn free_slot<const N: usize>(l: &Ledger<N>) -> (r: Option<usize>)
    requires l.inv(),
    ensures
        match r {
            Some(i) => i < N && l.slots@[i as int].is_none(),
            None => l.view().records.dom().len() >= N,
        },
{
    let mut i = 0;
    while i < N
        invariant l.inv(), i <= N, forall|j: int| 0 <= j < i ==> l.slots@[j].is_some(),
        decreases N - i,
    {
        if l.slots[i].is_none() {
            return Some(i);
        }
        i += 1;
    }
    proof { lemma_full(l); }
    None
}

pub fn reserve<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32, amount: u32) -> (r: Result<(), ReserveError>)
    requires old(l).inv(),
    ensures final(l).inv(), reserve_model(old(l).view(), id, owner, amount) == (final(l).view(), r),
{
    if amount == 0 {
        return Err(ReserveError::ZeroAmount);
    }
    if find(l, id).is_some() {
        return Err(ReserveError::DuplicateId);
    }
    let slot = match free_slot(l) {
        Some(i) => i,
        None => return Err(ReserveError::Full),
    };
    if amount as u64 + l.usage as u64 > l.capacity as u64 {
        return Err(ReserveError::OverCapacity);
    }
    l.slots.set(slot, Some(Record { id, owner, amount }));
    l.usage = l.usage + amount;
    proof { lemma_insert(old(l).slots@, slot as int, Record { id, owner, amount }); }
    Ok(())
}

pub fn release<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32) -> (r: Result<u32, ReleaseError>)
    requires old(l).inv(),
    ensures final(l).inv(), release_model(old(l).view(), id, owner) == (final(l).view(), r),
{
    let i = match find(l, id) {
        Some(i) => i,
        None => return Err(ReleaseError::NotFound),
    };
    let rec = l.slots[i].unwrap();
    proof { lemma_found(l.slots@, i as int); }
    if rec.owner != owner {
        return Err(ReleaseError::NotOwner);
    }
    l.slots.set(i, None);
    l.usage = l.usage - rec.amount;
    proof { lemma_remove(old(l).slots@, i as int); }
    Ok(rec.amount)
}

/* The lemmas the two operations need: slot-level edits and the view's map and total. */

proof fn lemma_absent(s: Seq<Option<Record>>, id: u32)
    requires forall|j: int| 0 <= j < s.len() ==> s[j].is_none() || s[j].unwrap().id != id,
    ensures !records_of(s).contains_key(id),
    decreases s.len(),
{
    if s.len() > 0 { lemma_absent(s.drop_last(), id); }
}

proof fn lemma_found(s: Seq<Option<Record>>, i: int)
    requires 0 <= i < s.len(), s[i].is_some(),
        forall|a: int, b: int| 0 <= a < s.len() && 0 <= b < s.len() && a != b && s[a].is_some() && s[b].is_some() ==> s[a].unwrap().id != s[b].unwrap().id,
    ensures records_of(s).contains_key(s[i].unwrap().id), records_of(s)[s[i].unwrap().id] == (s[i].unwrap().owner, s[i].unwrap().amount),
    decreases s.len(),
{
    if i < s.len() - 1 {
        lemma_found(s.drop_last(), i);
    }
}

proof fn lemma_full<const N: usize>(l: &Ledger<N>)
    requires l.inv(), forall|j: int| 0 <= j < N ==> l.slots@[j].is_some(),
    ensures l.view().records.dom().len() >= N,
{
    // Every slot holds a distinct id, so the map has N keys.
    let ids = Set::new(|k: u32| exists|j: int| 0 <= j < N && l.slots@[j].unwrap().id == k);
    assert forall|j: int| 0 <= j < N implies l.view().records.contains_key(l.slots@[j].unwrap().id) by {
        lemma_found(l.slots@, j);
    }
    vstd::set_lib::lemma_int_range(0, N as int);
    let f = |j: int| l.slots@[j].unwrap().id;
    vstd::set_lib::lemma_map_size(vstd::set_lib::set_int_range(0, N as int), l.view().records.dom(), f);
}

proof fn lemma_insert(s: Seq<Option<Record>>, i: int, r: Record)
    requires 0 <= i < s.len(), s[i].is_none(), !records_of(s).contains_key(r.id),
    ensures records_of(s.update(i, Some(r))) == records_of(s).insert(r.id, (r.owner, r.amount)),
        total(records_of(s).insert(r.id, (r.owner, r.amount))) == total(records_of(s)) + r.amount,
    decreases s.len(),
{
    if i < s.len() - 1 {
        lemma_insert(s.drop_last(), i, r);
        assert(s.update(i, Some(r)).drop_last() == s.drop_last().update(i, Some(r)));
    } else {
        assert(s.update(i, Some(r)).drop_last() == s.drop_last());
    }
    lemma_total_insert(records_of(s), r.id, (r.owner, r.amount));
}

proof fn lemma_remove(s: Seq<Option<Record>>, i: int)
    requires 0 <= i < s.len(), s[i].is_some(),
        forall|a: int, b: int| 0 <= a < s.len() && 0 <= b < s.len() && a != b && s[a].is_some() && s[b].is_some() ==> s[a].unwrap().id != s[b].unwrap().id,
    ensures records_of(s.update(i, None)) == records_of(s).remove(s[i].unwrap().id),
        total(records_of(s).remove(s[i].unwrap().id)) + s[i].unwrap().amount == total(records_of(s)),
    decreases s.len(),
{
    if i < s.len() - 1 {
        lemma_remove(s.drop_last(), i);
        assert(s.update(i, None).drop_last() == s.drop_last().update(i, None));
    } else {
        lemma_absent(s.drop_last(), s[i].unwrap().id);
        assert(s.update(i, None).drop_last() == s.drop_last());
    }
    lemma_found(s, i);
    lemma_total_insert(records_of(s).remove(s[i].unwrap().id), s[i].unwrap().id, (s[i].unwrap().owner, s[i].unwrap().amount));
}

/// total(m.insert(k, v)) == total(m) + v.1 for a fresh key: the map-sum law vKit reuses from vstd's
/// map and sequence lemmas (the reference: "VKit reuses the pinned vstd map and sequence laws").
proof fn lemma_total_insert(m: Map<u32, (u32, u32)>, k: u32, v: (u32, u32))
    requires m.dom().finite(), !m.contains_key(k),
    ensures total(m.insert(k, v)) == total(m) + v.1,
    decreases m.dom().len(),
{
    let n = m.insert(k, v);
    let c = n.dom().choose();
    assert(n.dom().contains(k));
    if c != k {
        lemma_total_insert(m.remove(c), k, v);
        assert(n.remove(c) == m.remove(c).insert(k, v));
        assert(m.dom().len() > 0);
        let c2 = m.dom().choose();
        lemma_total_choose(m, c);
    } else {
        assert(n.remove(c) == m);
    }
}

/// The total does not depend on which key `choose` picks first.
proof fn lemma_total_choose(m: Map<u32, (u32, u32)>, k: u32)
    requires m.dom().finite(), m.contains_key(k),
    ensures total(m) == m[k].1 + total(m.remove(k)),
    decreases m.dom().len(),
{
    let c = m.dom().choose();
    if c != k {
        lemma_total_choose(m.remove(c), k);
        lemma_total_choose(m.remove(k), c);
        assert(m.remove(c).remove(k) == m.remove(k).remove(c));
    }
}

} // verus!
