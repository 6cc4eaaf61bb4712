//! R3: validate never panics. A deterministic xorshift64 generator feeds 200,000 random byte
//! strings of length 0..=40 (any byte value, made into &str lossily) plus every length 0..=40 of
//! digit-only strings; each call must return, whatever it returns.
use ean_check::validate;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn random_byte_strings_never_panic() {
    let mut rng = XorShift(0x5EED_EA13_0000_0001);
    let mut accepted = 0;
    for _ in 0..200_000 {
        let len = (rng.next() % 41) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| (rng.next() & 0xff) as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        if validate(&text).is_ok() {
            accepted += 1;
        }
    }
    // Random bytes are almost never 13 digits: the loop exercised the rejection paths.
    assert!(accepted < 10);
}

#[test]
fn digit_strings_of_every_length_never_panic() {
    let mut rng = XorShift(0xD161_7500_0000_0002);
    for len in 0..=40 {
        for _ in 0..500 {
            let text: String = (0..len).map(|_| char::from(b'0' + (rng.next() % 10) as u8)).collect();
            let _ = validate(&text);
        }
    }
}
