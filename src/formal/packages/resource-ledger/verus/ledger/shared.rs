// SharedLedger over the pinned vstd write lock (NEVER CHECKED: see ../README.md).
// The lock predicate is the ledger invariant, so every completed critical section leaves a valid
// state; each completed reserve/release returns the ghost views it transitioned between, related by
// the model. This says nothing about global history linearizability, lock liveness or abort recovery.
use vstd::prelude::*;
use vstd::rwlock::{RwLock, RwLockPredicate};
use crate::{Ledger, LedgerView};
use crate::model::*;
use crate::reference;

verus! {

pub struct ValidLedger;

impl<const N: usize> RwLockPredicate<Ledger<N>> for ValidLedger {
    open spec fn inv(self, l: Ledger<N>) -> bool { l.inv() }
}

pub struct SharedLedger<const N: usize> {
    pub lock: RwLock<Ledger<N>, ValidLedger>,
}

impl<const N: usize> SharedLedger<N> {
    pub fn new(l: Ledger<N>) -> (s: Self)
        requires l.inv(),
    {
        SharedLedger { lock: RwLock::new(l, Ghost(ValidLedger)) }
    }

    pub fn reserve(&self, id: u32, owner: u32, amount: u32) -> (r: (Result<(), ReserveError>, Ghost<(LedgerView, LedgerView)>))
        ensures reserve_model(r.1@.0, id, owner, amount) == (r.1@.1, r.0),
    {
        let (mut l, handle) = self.lock.acquire_write();
        let ghost before = l.view();
        let res = reference::reserve(&mut l, id, owner, amount);
        let ghost after = l.view();
        handle.release_write(l);
        (res, Ghost((before, after)))
    }

    pub fn release(&self, id: u32, owner: u32) -> (r: (Result<u32, ReleaseError>, Ghost<(LedgerView, LedgerView)>))
        ensures release_model(r.1@.0, id, owner) == (r.1@.1, r.0),
    {
        let (mut l, handle) = self.lock.acquire_write();
        let ghost before = l.view();
        let res = reference::release(&mut l, id, owner);
        let ghost after = l.view();
        handle.release_write(l);
        (res, Ghost((before, after)))
    }
}

} // verus!
