// transfer against the atomic two-ledger model (NEVER CHECKED: see ../README.md).
// A package contract, separate from candidate API coverage: success conserves combined usage;
// either failure preserves both ledgers and identifies the failing operation.
use vstd::prelude::*;
use crate::Ledger;
use crate::LedgerView;
use crate::model::*;
use crate::reference;

verus! {

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TransferError { Release(ReleaseError), Reserve(ReserveError) }

/// The atomic two-ledger model: release `id` from `a` (checked as release_model), then reserve the same
/// amount under `new_id` for `new_owner` in `b`; on either failure, neither ledger changes.
pub open spec fn transfer_model(a: LedgerView, b: LedgerView, id: u32, owner: u32, new_id: u32, new_owner: u32)
    -> (LedgerView, LedgerView, Result<u32, TransferError>)
{
    let (a2, rel) = release_model(a, id, owner);
    match rel {
        Err(e) => (a, b, Err(TransferError::Release(e))),
        Ok(amount) => {
            let (b2, res) = reserve_model(b, new_id, new_owner, amount);
            match res {
                Err(e) => (a, b, Err(TransferError::Reserve(e))),
                Ok(()) => (a2, b2, Ok(amount)),
            }
        },
    }
}

pub fn transfer<const N: usize>(a: &mut Ledger<N>, b: &mut Ledger<N>, id: u32, owner: u32, new_id: u32, new_owner: u32)
    -> (r: Result<u32, TransferError>)
    requires old(a).inv(), old(b).inv(),
    ensures
        final(a).inv(), final(b).inv(),
        transfer_model(old(a).view(), old(b).view(), id, owner, new_id, new_owner) == (final(a).view(), final(b).view(), r),
        r.is_ok() ==> final(a).view().usage + final(b).view().usage == old(a).view().usage + old(b).view().usage,
{
    let amount = match reference::release(a, id, owner) {
        Err(e) => return Err(TransferError::Release(e)),
        Ok(amount) => amount,
    };
    match reference::reserve(b, new_id, new_owner, amount) {
        Ok(()) => Ok(amount),
        Err(e) => {
            // Undo: put the released record back. The view (the map) is the state the model compares,
            // so the slot it lands in does not matter.
            let undo = reference::reserve(a, id, owner, amount);
            proof {
                // release succeeded, so id was present with positive amount, and re-adding it fits:
                // the record count and the usage are back below their bounds.
                assert(undo.is_ok());
            }
            Err(TransferError::Reserve(e))
        },
    }
}

} // verus!
