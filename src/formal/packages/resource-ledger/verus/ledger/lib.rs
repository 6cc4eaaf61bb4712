// vkit.resource-ledger 0.1.0, Verus profile `verus-linux-x86_64-v1`: the owned library.
//
// NEVER CHECKED: Verus cannot be installed on the machine that wrote these sources. They are the
// procedure's inputs as designed; see ../README.md. Do not read anything here as verified.
//
// Contents: the Ledger<N> state and its view, the invariant, the command model (one pure function
// per operation, deciding the response and the next view), the six bindings' contracts stated over
// that model, an owned reference implementation of reserve/release (used by transfer and
// SharedLedger), transfer against the atomic two-ledger model, and SharedLedger over the vstd write lock.
#![allow(unused)]
use vstd::prelude::*;

pub mod model;
pub mod reference;
pub mod transfer;
pub mod shared;

verus! {

/// Batch capacity: reserve_batch accepts at most three requests.
pub const BATCH_CAPACITY: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub id: u32,
    pub owner: u32,
    pub amount: u32,
}

/// A positive-sized ledger: `N` preallocated slots, a capacity and the cached usage.
pub struct Ledger<const N: usize> {
    pub slots: [Option<Record>; N],
    pub capacity: u32,
    pub usage: u32,
}

/// What the contracts talk about: reservation id -> (owner, amount), the capacity, the cached usage
/// and the record bound. Two ledgers with the same view are the same state for every contract.
pub ghost struct LedgerView {
    pub records: Map<u32, (u32, u32)>,
    pub capacity: nat,
    pub usage: nat,
    pub max_records: nat,
}

/// Id -> (owner, amount) over a slot sequence. Later slots never override earlier ones because the
/// invariant forbids duplicate ids.
pub open spec fn records_of(s: Seq<Option<Record>>) -> Map<u32, (u32, u32)>
    decreases s.len(),
{
    if s.len() == 0 {
        Map::empty()
    } else {
        let rest = records_of(s.drop_last());
        match s.last() {
            Some(r) => rest.insert(r.id, (r.owner, r.amount)),
            None => rest,
        }
    }
}

/// Sum of the amounts of the records of a map (the reservation total).
pub open spec fn total(m: Map<u32, (u32, u32)>) -> nat
    decreases m.dom().len(),
    via total_decreases
{
    if m.dom().finite() && m.dom().len() > 0 {
        let k = m.dom().choose();
        m[k].1 as nat + total(m.remove(k))
    } else {
        0
    }
}

#[via_fn]
proof fn total_decreases(m: Map<u32, (u32, u32)>) {
    if m.dom().finite() && m.dom().len() > 0 {
        let k = m.dom().choose();
        assert(m.dom().contains(k));
        vstd::set_lib::lemma_set_remove_len(m.dom(), k);
    }
}

impl<const N: usize> Ledger<N> {
    pub open spec fn view(&self) -> LedgerView {
        LedgerView {
            records: records_of(self.slots@),
            capacity: self.capacity as nat,
            usage: self.usage as nat,
            max_records: N as nat,
        }
    }

    /// The invariant: positive active amounts, unique reservation ids, bounded record count (at most
    /// N by construction), cached usage equal to the map's reservation total, usage at most capacity.
    pub open spec fn inv(&self) -> bool {
        &&& N > 0
        &&& forall|i: int| 0 <= i < N && self.slots@[i].is_some() ==> self.slots@[i].unwrap().amount > 0
        &&& forall|i: int, j: int|
            0 <= i < N && 0 <= j < N && i != j && self.slots@[i].is_some() && self.slots@[j].is_some()
                ==> self.slots@[i].unwrap().id != self.slots@[j].unwrap().id
        &&& self.view().records.dom().finite()
        &&& self.view().records.dom().len() <= N
        &&& self.view().usage == total(self.view().records)
        &&& self.view().usage <= self.view().capacity
    }
}

pub open spec fn view_inv(v: LedgerView) -> bool {
    &&& v.max_records > 0
    &&& v.records.dom().finite()
    &&& v.records.dom().len() <= v.max_records
    &&& forall|k: u32| v.records.contains_key(k) ==> v.records[k].1 > 0
    &&& v.usage == total(v.records)
    &&& v.usage <= v.capacity
}

} // verus!
