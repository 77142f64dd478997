//! DURATION flags (`90`, `90s`, `500ms`, `10m`, `1h`), parsed by clap: a bad value names its
//! flag and stops the command before anything starts.

use std::time::Duration;

/// Parses `90` (seconds), `90s`, `500ms`, `10m`, `1h`, `1.5s`.
pub(crate) fn parse(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((t, ""), |i| t.split_at(i));
    let hint = "expected a number with an optional unit: 90, 90s, 500ms, 10m or 1h";
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid duration {s:?}: {hint}"))?;
    let secs = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => {
            return Err(format!(
                "invalid duration {s:?}: unknown unit {unit:?}; {hint}"
            ))
        }
    };
    if !secs.is_finite() || !(0.0..=u32::MAX as f64).contains(&secs) {
        return Err(format!("invalid duration {s:?}: out of range"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::time::Duration;

    #[test]
    fn units_and_bare_seconds() {
        assert_eq!(parse("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse("banana").is_err());
        assert!(parse("5d").is_err());
        assert!(parse("-1s").is_err());
        assert!(parse("1e400").is_err());
    }
}
