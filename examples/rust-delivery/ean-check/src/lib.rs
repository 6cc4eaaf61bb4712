//! EAN-13 validation: a string is a valid EAN-13 number when it is exactly 13 ASCII digits and
//! its last digit is the GS1 check digit of the first twelve.
//!
//! ```
//! use ean_check::{validate, EanError};
//!
//! assert_eq!(validate("4006381333931").unwrap().digits()[12], 1);
//! assert_eq!(validate("4006381333932"), Err(EanError::BadCheckDigit { expected: 1, found: 2 }));
//! assert_eq!(validate("400638133393"), Err(EanError::BadLength { len: 12 }));
//! ```
#![forbid(unsafe_code)]

/// Number of digits in an EAN-13 number.
pub const LEN: usize = 13;

/// Why a string is not a valid EAN-13 number. Checks run in this order: characters, length,
/// check digit, so each input has exactly one reported defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EanError {
    /// The input is empty (after nothing was trimmed: whitespace is a bad character).
    Empty,
    /// The byte at `at` (0-based) is not an ASCII digit.
    BadCharacter { at: usize },
    /// The input has `len` digits, not 13.
    BadLength { len: usize },
    /// The last digit is `found`; the first twelve digits require `expected`.
    BadCheckDigit { expected: u8, found: u8 },
}

/// A validated EAN-13 number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ean13([u8; LEN]);

impl Ean13 {
    /// The thirteen digits, each 0..=9.
    pub fn digits(&self) -> [u8; LEN] {
        self.0
    }
}

/// The GS1 check digit of twelve digits: weights 1, 3, 1, 3, ... from the left, then the
/// distance of the weighted sum to the next multiple of ten.
pub fn check_digit(first12: &[u8; 12]) -> u8 {
    let mut sum: u32 = 0;
    for (i, d) in first12.iter().enumerate() {
        let weight = if i % 2 == 0 { 1 } else { 3 };
        sum += u32::from(*d) * weight;
    }
    ((10 - sum % 10) % 10) as u8
}

/// Validates `input` as an EAN-13 number.
pub fn validate(input: &str) -> Result<Ean13, EanError> {
    let bytes = input.as_bytes();
    if bytes.is_empty() {
        return Err(EanError::Empty);
    }
    for (at, b) in bytes.iter().enumerate() {
        if !b.is_ascii_digit() {
            return Err(EanError::BadCharacter { at });
        }
    }
    if bytes.len() != LEN {
        return Err(EanError::BadLength { len: bytes.len() });
    }
    let mut digits = [0u8; LEN];
    for i in 0..LEN {
        digits[i] = bytes[i] - b'0';
    }
    let mut first12 = [0u8; 12];
    first12.copy_from_slice(&digits[..12]);
    let expected = check_digit(&first12);
    let found = digits[12];
    if expected != found {
        return Err(EanError::BadCheckDigit { expected, found });
    }
    Ok(Ean13(digits))
}
