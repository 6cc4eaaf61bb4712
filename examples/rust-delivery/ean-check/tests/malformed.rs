//! R1: malformed input is rejected with the error variant that names its defect.
use ean_check::{validate, EanError};

#[test]
fn empty_input_is_empty() {
    assert_eq!(validate(""), Err(EanError::Empty));
}

#[test]
fn a_letter_is_a_bad_character_at_its_position() {
    assert_eq!(validate("40063813339X1"), Err(EanError::BadCharacter { at: 11 }));
}

#[test]
fn whitespace_is_a_bad_character_not_trimmed() {
    assert_eq!(validate(" 4006381333931"), Err(EanError::BadCharacter { at: 0 }));
    assert_eq!(validate("4006381333931\n"), Err(EanError::BadCharacter { at: 13 }));
}

#[test]
fn a_non_ascii_digit_is_a_bad_character() {
    // U+0664 ARABIC-INDIC DIGIT FOUR is a digit to Unicode, not to EAN-13.
    assert_eq!(validate("\u{664}006381333931"), Err(EanError::BadCharacter { at: 0 }));
}

#[test]
fn too_short_is_bad_length() {
    assert_eq!(validate("400638133393"), Err(EanError::BadLength { len: 12 }));
}

#[test]
fn too_long_is_bad_length() {
    assert_eq!(validate("40063813339310"), Err(EanError::BadLength { len: 14 }));
}

#[test]
fn characters_are_checked_before_length() {
    assert_eq!(validate("12a"), Err(EanError::BadCharacter { at: 2 }));
}

#[test]
fn wrong_last_digit_is_bad_check_digit() {
    assert_eq!(validate("4006381333932"), Err(EanError::BadCheckDigit { expected: 1, found: 2 }));
}
