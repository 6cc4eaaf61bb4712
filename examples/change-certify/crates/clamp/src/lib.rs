/// A percentage from a reading: below 0 is 0, above 100 is 100.
pub fn clamp_percent(x: i32) -> i32 {
    if x < 0 {
        0
    } else if x > 100 {
        100
    } else {
        x
    }
}
