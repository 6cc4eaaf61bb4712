/// A percentage from a reading: below 0 is 0, above 100 is 100 (the candidate's rewrite).
pub fn clamp_percent(x: i32) -> i32 {
    x.clamp(0, 100)
}
