// The fixed observation driver (NEVER CHECKED: see ../README.md). Compiled with the checked library
// and candidate into a retained executable; it runs fixed cases through the bound API, at least one
// per binding and per rejection branch, and prints `observation\tNAME\tEXPECTED\tOBSERVED` per case
// and `observations\tN` last. Empirical only: it trusts Verus erasure, rustc and the linker.
#![allow(unused)]
use vkit_ledger::{Ledger, Record};
use vkit_ledger::model::*;

mod bound;

static mut COUNT: usize = 0;

fn see(name: &str, expected: String, observed: String) {
    println!("observation\t{}\t{}\t{}", name, expected, observed);
    unsafe { COUNT += 1 }
}

fn show_reserve(r: Result<(), ReserveError>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(ReserveError::ZeroAmount) => "zero_amount".into(),
        Err(ReserveError::DuplicateId) => "duplicate_id".into(),
        Err(ReserveError::Full) => "full".into(),
        Err(ReserveError::OverCapacity) => "over_capacity".into(),
    }
}

fn show_release(r: Result<u32, ReleaseError>) -> String {
    match r {
        Ok(a) => format!("ok:{}", a),
        Err(ReleaseError::NotFound) => "not_found".into(),
        Err(ReleaseError::NotOwner) => "not_owner".into(),
    }
}

fn show_batch(r: Result<(), BatchError>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(BatchError::TooMany) => "too_many".into(),
        Err(BatchError::Failed { index, error }) => format!("failed:{}:{}", index, show_reserve(Err(error))),
    }
}

fn show_response(r: Response) -> String {
    match r {
        Response::Reserved(x) => format!("reserved:{}", show_reserve(x)),
        Response::Released(x) => format!("released:{}", show_release(x)),
    }
}

fn main() {
    let dirty = [Some(Record { id: 9, owner: 9, amount: 9 }), None];
    let mut l: Ledger<2> = bound::new::<2>(dirty, 10);
    see("new.clears_slots", "0:true".into(), format!("{}:{}", l.usage, l.slots.iter().all(|s| s.is_none())));

    see("reserve.zero_amount", "zero_amount".into(), show_reserve(bound::reserve(&mut l, 1, 7, 0)));
    see("reserve.ok", "ok".into(), show_reserve(bound::reserve(&mut l, 1, 7, 4)));
    see("reserve.duplicate_id", "duplicate_id".into(), show_reserve(bound::reserve(&mut l, 1, 7, 1)));
    see("reserve.over_capacity", "over_capacity".into(), show_reserve(bound::reserve(&mut l, 2, 7, 7)));
    see("reserve.ok_second", "ok".into(), show_reserve(bound::reserve(&mut l, 2, 7, 6)));
    see("reserve.full", "full".into(), show_reserve(bound::reserve(&mut l, 3, 7, 1)));
    // Order: a duplicate id is reported before full storage.
    see("reserve.order_duplicate_before_full", "duplicate_id".into(), show_reserve(bound::reserve(&mut l, 1, 7, 1)));

    see("release.not_found", "not_found".into(), show_release(bound::release(&mut l, 5, 7)));
    see("release.not_owner", "not_owner".into(), show_release(bound::release(&mut l, 1, 8)));
    see("release.ok", "ok:4".into(), show_release(bound::release(&mut l, 1, 7)));
    see("release.usage_after", "6".into(), format!("{}", l.usage));

    let mut b: Ledger<2> = bound::new::<2>([None, None], 10);
    let four = [Request { id: 1, owner: 1, amount: 1 }; 4];
    see("reserve_batch.too_many", "too_many".into(), show_batch(bound::reserve_batch(&mut b, &four)));
    let failing = [Request { id: 1, owner: 1, amount: 2 }, Request { id: 2, owner: 1, amount: 0 }];
    see("reserve_batch.first_failing_index", "failed:1:zero_amount".into(), show_batch(bound::reserve_batch(&mut b, &failing)));
    see("reserve_batch.rollback", "0".into(), format!("{}", b.usage));
    let good = [Request { id: 1, owner: 1, amount: 2 }, Request { id: 2, owner: 1, amount: 3 }];
    see("reserve_batch.commit", "ok:5".into(), format!("{}:{}", show_batch(bound::reserve_batch(&mut b, &good)), b.usage));

    let mut c: Ledger<2> = bound::new::<2>([None, None], 10);
    see("apply_command.reserve", "reserved:ok".into(), show_response(bound::apply_command(&mut c, Command::Reserve { id: 4, owner: 2, amount: 3 })));
    see("apply_command.release", "released:ok:3".into(), show_response(bound::apply_command(&mut c, Command::Release { id: 4, owner: 2 })));

    let cmds = [Command::Reserve { id: 1, owner: 1, amount: 5 }, Command::Release { id: 1, owner: 2 }, Command::Release { id: 1, owner: 1 }];
    let rs = bound::run_commands::<2, 3>(&mut c, cmds);
    let shown: Vec<String> = rs.iter().map(|r| show_response(*r)).collect();
    see("run_commands.trace", "reserved:ok,released:not_owner,released:ok:5".into(), shown.join(","));
    let empty: [Command; 0] = [];
    let before = c.usage;
    let rs0 = bound::run_commands::<2, 0>(&mut c, empty);
    see("run_commands.empty_preserves", "0:true".into(), format!("{}:{}", rs0.len(), c.usage == before));

    println!("observations\t{}", unsafe { COUNT });
}
