//! R2: the check digit is computed correctly. Known-valid numbers pass, and every single-digit
//! substitution of each of them is rejected (exhaustive over positions and replacement digits:
//! the 1-3 weighting detects every single-digit error, so none may slip through).
use ean_check::{check_digit, validate, EanError};

const KNOWN_VALID: [&str; 8] = [
    "4006381333931",
    "9780306406157",
    "5901234123457",
    "0012345678905",
    "9501101530003",
    "4012345678901",
    "8710103817130",
    "0000000000000",
];

#[test]
fn known_valid_numbers_pass() {
    for code in KNOWN_VALID {
        let ean = validate(code).unwrap_or_else(|e| panic!("{code}: {e:?}"));
        let text: String = ean.digits().iter().map(|d| char::from(b'0' + d)).collect();
        assert_eq!(text, code);
    }
}

#[test]
fn check_digit_of_known_prefixes() {
    assert_eq!(check_digit(&[4, 0, 0, 6, 3, 8, 1, 3, 3, 3, 9, 3]), 1);
    assert_eq!(check_digit(&[9, 7, 8, 0, 3, 0, 6, 4, 0, 6, 1, 5]), 7);
    assert_eq!(check_digit(&[0; 12]), 0);
}

#[test]
fn every_single_digit_substitution_is_rejected() {
    let mut tried = 0;
    for code in KNOWN_VALID {
        for pos in 0..13 {
            for d in b'0'..=b'9' {
                let mut bytes = code.as_bytes().to_vec();
                if bytes[pos] == d {
                    continue;
                }
                bytes[pos] = d;
                let mutated = String::from_utf8(bytes).unwrap();
                assert!(
                    matches!(validate(&mutated), Err(EanError::BadCheckDigit { .. })),
                    "{mutated} (from {code}) was not rejected"
                );
                tried += 1;
            }
        }
    }
    assert_eq!(tried, 8 * 13 * 9);
}
