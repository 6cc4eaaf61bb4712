// The expected client (NEVER CHECKED: see ../README.md). vkit copies this file unchanged (its digest
// is recorded) beside a generated `bound.rs` of `pub use candidate::<path> as <binding>;` lines, and
// checks it importing both the library and the candidate. Each function calls one bound symbol under
// the accepted precondition only and asserts the owned postcondition; a candidate with a stronger
// precondition fails the call, one with a weaker postcondition fails the assertion.
#![allow(unused)]
use vstd::prelude::*;
use vkit_ledger::{Ledger, Record};
use vkit_ledger::model::*;

mod bound;

verus! {

fn client_new<const N: usize>(slots: [Option<Record>; N], capacity: u32)
    requires new_pre::<N>(capacity),
{
    let l = bound::new::<N>(slots, capacity);
    assert(new_post::<N>(capacity, l));
}

fn client_reserve<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32, amount: u32)
    requires reserve_pre::<N>(*old(l)),
{
    let ghost before = *l;
    let r = bound::reserve::<N>(l, id, owner, amount);
    assert(reserve_post::<N>(before, *l, id, owner, amount, r));
}

fn client_release<const N: usize>(l: &mut Ledger<N>, id: u32, owner: u32)
    requires release_pre::<N>(*old(l)),
{
    let ghost before = *l;
    let r = bound::release::<N>(l, id, owner);
    assert(release_post::<N>(before, *l, id, owner, r));
}

fn client_reserve_batch<const N: usize>(l: &mut Ledger<N>, reqs: &[Request])
    requires batch_pre::<N>(*old(l)),
{
    let ghost before = *l;
    let r = bound::reserve_batch::<N>(l, reqs);
    assert(batch_post::<N>(before, *l, reqs@, r));
}

fn client_apply_command<const N: usize>(l: &mut Ledger<N>, c: Command)
    requires apply_pre::<N>(*old(l)),
{
    let ghost before = *l;
    let r = bound::apply_command::<N>(l, c);
    assert(apply_post::<N>(before, *l, c, r));
}

fn client_run_commands<const N: usize, const M: usize>(l: &mut Ledger<N>, cmds: [Command; M])
    requires run_pre::<N>(*old(l)),
{
    let ghost before = *l;
    let rs = bound::run_commands::<N, M>(l, cmds);
    assert(run_post::<N, M>(before, *l, cmds@, rs@));
}

} // verus!
