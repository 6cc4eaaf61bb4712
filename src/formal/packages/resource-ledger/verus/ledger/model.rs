// The command model and the six bindings' contracts (NEVER CHECKED: see ../README.md).
//
// Each operation is one pure spec function from a view to (next view, response); every contract below
// says "the candidate's observable result equals the model's". Rejection orders are the model's `if`
// order, exactly as the reference's table gives them.
use vstd::prelude::*;
use crate::{LedgerView, Ledger, Record, BATCH_CAPACITY};

verus! {

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReserveError { ZeroAmount, DuplicateId, Full, OverCapacity }

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReleaseError { NotFound, NotOwner }

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BatchError { TooMany, Failed { index: usize, error: ReserveError } }

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Request { pub id: u32, pub owner: u32, pub amount: u32 }

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Reserve { id: u32, owner: u32, amount: u32 },
    Release { id: u32, owner: u32 },
}

/// Tagged responses: the tag names the operation, the payload its result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Response {
    Reserved(Result<(), ReserveError>),
    Released(Result<u32, ReleaseError>),
}

/// reserve: reject zero amount, duplicate id, full storage, exceeded capacity, in that order.
/// Success inserts the exact record; rejection preserves the state.
pub open spec fn reserve_model(v: LedgerView, id: u32, owner: u32, amount: u32) -> (LedgerView, Result<(), ReserveError>) {
    if amount == 0 {
        (v, Err(ReserveError::ZeroAmount))
    } else if v.records.contains_key(id) {
        (v, Err(ReserveError::DuplicateId))
    } else if v.records.dom().len() >= v.max_records {
        (v, Err(ReserveError::Full))
    } else if v.usage + amount > v.capacity {
        (v, Err(ReserveError::OverCapacity))
    } else {
        (LedgerView { records: v.records.insert(id, (owner, amount)), usage: v.usage + amount, ..v }, Ok(()))
    }
}

/// release: existence before ownership. Success removes the id and returns its amount.
pub open spec fn release_model(v: LedgerView, id: u32, owner: u32) -> (LedgerView, Result<u32, ReleaseError>) {
    if !v.records.contains_key(id) {
        (v, Err(ReleaseError::NotFound))
    } else if v.records[id].0 != owner {
        (v, Err(ReleaseError::NotOwner))
    } else {
        let amount = v.records[id].1;
        (LedgerView { records: v.records.remove(id), usage: (v.usage - amount) as nat, ..v }, Ok(amount))
    }
}

/// Requests from index `i` on, in order, on a working view: the first failure with its index, or the final view.
pub open spec fn batch_from(v: LedgerView, reqs: Seq<Request>, i: int) -> (LedgerView, Result<(), BatchError>)
    decreases reqs.len() - i,
{
    if i >= reqs.len() {
        (v, Ok(()))
    } else {
        let (next, r) = reserve_model(v, reqs[i].id, reqs[i].owner, reqs[i].amount);
        match r {
            Err(e) => (v, Err(BatchError::Failed { index: i as usize, error: e })),
            Ok(()) => batch_from(next, reqs, i + 1),
        }
    }
}

/// reserve_batch: count first (batch capacity three), then in order; all requests commit together or
/// the original state is preserved.
pub open spec fn batch_model(v: LedgerView, reqs: Seq<Request>) -> (LedgerView, Result<(), BatchError>) {
    if reqs.len() > BATCH_CAPACITY {
        (v, Err(BatchError::TooMany))
    } else {
        let (end, r) = batch_from(v, reqs, 0);
        match r {
            Ok(()) => (end, Ok(())),
            Err(e) => (v, Err(e)),
        }
    }
}

/// apply_command: the model's operation and its tagged response.
pub open spec fn command_model(v: LedgerView, c: Command) -> (LedgerView, Response) {
    match c {
        Command::Reserve { id, owner, amount } => {
            let (n, r) = reserve_model(v, id, owner, amount);
            (n, Response::Reserved(r))
        },
        Command::Release { id, owner } => {
            let (n, r) = release_model(v, id, owner);
            (n, Response::Released(r))
        },
    }
}

/// The M+1 trace of views of running `cmds` from `v` (trace[0] == v), and the M responses.
pub open spec fn trace_model(v: LedgerView, cmds: Seq<Command>) -> Seq<LedgerView>
    decreases cmds.len(),
{
    if cmds.len() == 0 {
        seq![v]
    } else {
        let prev = trace_model(v, cmds.drop_last());
        prev.push(command_model(prev.last(), cmds.last()).0)
    }
}

pub open spec fn responses_model(v: LedgerView, cmds: Seq<Command>) -> Seq<Response>
    decreases cmds.len(),
{
    if cmds.len() == 0 {
        seq![]
    } else {
        let prev = trace_model(v, cmds.drop_last());
        responses_model(v, cmds.drop_last()).push(command_model(prev.last(), cmds.last()).1)
    }
}

/* ------------------------------------------------------------------ the six bindings' contracts */
// Accepted preconditions are exactly these `*_pre`; owned postconditions exactly these `*_post`.
// The expected client (../client/client.rs) calls each bound symbol under `*_pre` and asserts `*_post`.

pub open spec fn new_pre<const N: usize>(capacity: u32) -> bool { N > 0 }
pub open spec fn new_post<const N: usize>(capacity: u32, l: Ledger<N>) -> bool {
    &&& l.inv()
    &&& l.view().records == Map::<u32, (u32, u32)>::empty()
    &&& l.view().usage == 0
    &&& l.view().capacity == capacity as nat
    &&& forall|i: int| 0 <= i < N ==> l.slots@[i].is_none()
}

pub open spec fn reserve_pre<const N: usize>(l: Ledger<N>) -> bool { l.inv() }
pub open spec fn reserve_post<const N: usize>(before: Ledger<N>, after: Ledger<N>, id: u32, owner: u32, amount: u32, r: Result<(), ReserveError>) -> bool {
    after.inv() && reserve_model(before.view(), id, owner, amount) == (after.view(), r)
}

pub open spec fn release_pre<const N: usize>(l: Ledger<N>) -> bool { l.inv() }
pub open spec fn release_post<const N: usize>(before: Ledger<N>, after: Ledger<N>, id: u32, owner: u32, r: Result<u32, ReleaseError>) -> bool {
    after.inv() && release_model(before.view(), id, owner) == (after.view(), r)
}

pub open spec fn batch_pre<const N: usize>(l: Ledger<N>) -> bool { l.inv() }
pub open spec fn batch_post<const N: usize>(before: Ledger<N>, after: Ledger<N>, reqs: Seq<Request>, r: Result<(), BatchError>) -> bool {
    after.inv() && batch_model(before.view(), reqs) == (after.view(), r)
}

pub open spec fn apply_pre<const N: usize>(l: Ledger<N>) -> bool { l.inv() }
pub open spec fn apply_post<const N: usize>(before: Ledger<N>, after: Ledger<N>, c: Command, r: Response) -> bool {
    after.inv() && command_model(before.view(), c) == (after.view(), r)
}

pub open spec fn run_pre<const N: usize>(l: Ledger<N>) -> bool { l.inv() }
/// Every state and response of the M+1 trace: trace[0] is the initial view, trace[M] the final one,
/// and step i relates trace[i] to trace[i+1] and response i. M == 0 preserves the initial state.
pub open spec fn run_post<const N: usize, const M: usize>(before: Ledger<N>, after: Ledger<N>, cmds: Seq<Command>, rs: Seq<Response>) -> bool {
    let t = trace_model(before.view(), cmds);
    &&& cmds.len() == M
    &&& after.inv()
    &&& t.len() == M + 1
    &&& t[0] == before.view()
    &&& t[M as int] == after.view()
    &&& rs.len() == M
    &&& forall|i: int| 0 <= i < M ==> command_model(t[i], cmds[i]) == (t[i + 1], rs[i])
}

} // verus!
