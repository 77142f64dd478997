//! Unix time as the calendar the service writes: new-api's request ids begin with the UTC date
//! and time (`20251121000003…`), and gatecheck's recordings and reports show the same clock.

/// The proleptic Gregorian `(year, month, day)` of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
///
/// ```
/// use gatecheck_schemas::rules::time::civil_from_days;
/// assert_eq!(civil_from_days(0), (1970, 1, 1));
/// assert_eq!(civil_from_days(20_413), (2025, 11, 21));
/// assert_eq!(civil_from_days(-1), (1969, 12, 31));
/// ```
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Unix seconds as `(year, month, day, hour, minute, second)`, UTC.
///
/// ```
/// use gatecheck_schemas::rules::time::utc_parts;
/// assert_eq!(utc_parts(1_763_683_203), (2025, 11, 21, 0, 0, 3));
/// ```
pub fn utc_parts(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The header every answer carries its request id in (the id begins with the UTC date and time).
pub const REQUEST_ID_HEADER: &str = "x-oneapi-request-id";
