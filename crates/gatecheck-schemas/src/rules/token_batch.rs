//! `GET /api/token/search`, `POST /api/token/batch` and `POST /api/token/batch/keys`: new-api's
//! limits, messages and search matching (DECISIONS D-TOKEN-6 to D-TOKEN-9).
//!
//! From new-api's `controller/token.go` (`SearchTokens`, `DeleteTokenBatch`,
//! `GetTokenKeysBatch`), `model/token.go` (`SearchUserTokens`, `sanitizeLikePattern`,
//! `BatchDeleteTokens`, `GetTokenKeysByIds`) and `i18n/locales/en.yaml`. Every refusal is an
//! HTTP 200 `{success:false, message}`; a caller only ever sees or touches its own keys.

/// The path of the search, routed before `GET /api/token/{id}` (else `search` is read as an id).
pub const SEARCH_PATH: &str = "/api/token/search";
/// The most items one search page holds (`searchHardLimit`: a larger or non-positive limit is
/// cut to it).
pub const SEARCH_HARD_LIMIT: usize = 100;
/// The most ids `POST /api/token/batch/keys` takes (`MsgBatchTooMany`, `Max: 100`). The batch
/// delete has no limit.
pub const BATCH_KEYS_MAX: usize = 100;
/// `common.invalid_params`: a body that is not `{ids:[int,...]}`, or an empty `ids`.
pub const MSG_INVALID_PARAMS: &str = "Invalid parameters";
/// `sanitizeLikePattern`: two `%` in a row.
pub const MSG_DOUBLE_PERCENT: &str = "搜索模式中不允许包含连续的 % 通配符";
/// `sanitizeLikePattern`: more than two `%`.
pub const MSG_TOO_MANY_PERCENT: &str = "搜索模式中最多允许包含 2 个 % 通配符";
/// `sanitizeLikePattern`: a fuzzy pattern with fewer than 2 bytes besides its `%`.
pub const MSG_FUZZY_TOO_SHORT: &str = "使用模糊搜索时，关键词长度至少为 2 个字符";

/// `common.batch_too_many` with `Max` (en.yaml: `Too many items in batch request, maximum is
/// {{.Max}}`).
///
/// ```
/// use gatecheck_schemas::rules::token_batch::{batch_too_many_message, BATCH_KEYS_MAX};
/// assert_eq!(batch_too_many_message(BATCH_KEYS_MAX), "Too many items in batch request, maximum is 100");
/// ```
pub fn batch_too_many_message(max: usize) -> String {
    format!("Too many items in batch request, maximum is {max}")
}

/// The ids of a batch body `{ids:[int,...]}`: a body that does not parse, `ids` missing, null
/// or empty, or an id that is not an integer is [`MSG_INVALID_PARAMS`] (gin's `ShouldBindJSON`
/// into `[]int`, then `len(ids) == 0`).
///
/// ```
/// use gatecheck_schemas::rules::token_batch::parse_batch_ids;
/// assert_eq!(parse_batch_ids(br#"{"ids":[3,1]}"#), Ok(vec![3, 1]));
/// assert!(parse_batch_ids(br#"{"ids":[]}"#).is_err());
/// assert!(parse_batch_ids(br#"{"ids":["3"]}"#).is_err());
/// assert!(parse_batch_ids(b"ids=3").is_err());
/// ```
pub fn parse_batch_ids(body: &[u8]) -> Result<Vec<i64>, &'static str> {
    #[derive(serde::Deserialize)]
    struct Batch {
        #[serde(default)]
        ids: Option<Vec<i64>>,
    }
    match serde_json::from_slice::<Batch>(body) {
        Ok(Batch { ids: Some(ids) }) if !ids.is_empty() => Ok(ids),
        _ => Err(MSG_INVALID_PARAMS),
    }
}

/// `sanitizeLikePattern`: `!` and `_` escaped with `!` (so `_` matches itself), then at most
/// two `%` and none doubled, and with a `%` at least 2 bytes besides it (counted after the
/// escaping, as new-api counts). Without `%` the pattern is an exact match.
///
/// ```
/// use gatecheck_schemas::rules::token_batch::sanitize_like_pattern;
/// assert_eq!(sanitize_like_pattern("a_b").as_deref(), Ok("a!_b"));
/// assert!(sanitize_like_pattern("%%ab").is_err());
/// assert!(sanitize_like_pattern("%a%b%").is_err());
/// assert!(sanitize_like_pattern("%a").is_err());
/// assert!(sanitize_like_pattern("%ab%").is_ok());
/// ```
pub fn sanitize_like_pattern(input: &str) -> Result<String, &'static str> {
    let escaped = input.replace('!', "!!").replace('_', "!_");
    if escaped.contains("%%") {
        return Err(MSG_DOUBLE_PERCENT);
    }
    let count = escaped.matches('%').count();
    if count > 2 {
        return Err(MSG_TOO_MANY_PERCENT);
    }
    if count > 0 && escaped.len() - count < 2 {
        return Err(MSG_FUZZY_TOO_SHORT);
    }
    Ok(escaped)
}

/// SQL `LIKE pattern ESCAPE '!'` of a sanitized pattern: `%` any run of characters, `_` one
/// character, `!x` the character `x`; ASCII letters compared without case (SQLite's `LIKE`,
/// MySQL's default collation; DECISIONS D-TOKEN-6).
///
/// ```
/// use gatecheck_schemas::rules::token_batch::like_matches;
/// assert!(like_matches("%ork%", "Work key"));
/// assert!(like_matches("work key", "Work key"));
/// assert!(!like_matches("work", "Work key"));
/// assert!(like_matches("a!_b", "a_b") && !like_matches("a!_b", "axb"));
/// ```
pub fn like_matches(pattern: &str, value: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let v: Vec<char> = value.chars().collect();
    like_at(&p, &v)
}

fn like_at(p: &[char], v: &[char]) -> bool {
    match p.split_first() {
        None => v.is_empty(),
        Some(('%', rest)) => (0..=v.len()).any(|i| like_at(rest, &v[i..])),
        Some(('_', rest)) => !v.is_empty() && like_at(rest, &v[1..]),
        Some(('!', rest)) if !rest.is_empty() => match v.first() {
            Some(c) if *c == rest[0] => like_at(&rest[1..], &v[1..]),
            _ => false,
        },
        Some((c, rest)) => match v.first() {
            Some(got) if got.eq_ignore_ascii_case(c) => like_at(rest, &v[1..]),
            _ => false,
        },
    }
}

/// Whether a key named `name` with the stored secret `key` (no `sk-`) is an item of
/// `GET /api/token/search?keyword=&token=`: each non-empty parameter a sanitized `LIKE` (the
/// token without its `sk-`), the empty ones no filter. `Err` is the refusal of a pattern.
///
/// ```
/// use gatecheck_schemas::rules::token_batch::search_matches;
/// assert_eq!(search_matches("", "sk-abcd", "any", "abcd"), Ok(true));
/// assert_eq!(search_matches("%ny%", "", "any", "abcd"), Ok(true));
/// assert_eq!(search_matches("an", "", "any", "abcd"), Ok(false));
/// assert!(search_matches("%", "", "any", "abcd").is_err());
/// ```
pub fn search_matches(
    keyword: &str,
    token: &str,
    name: &str,
    key: &str,
) -> Result<bool, &'static str> {
    let token = token.strip_prefix("sk-").unwrap_or(token);
    let mut hit = true;
    if !keyword.is_empty() {
        hit &= like_matches(&sanitize_like_pattern(keyword)?, name);
    }
    if !token.is_empty() {
        hit &= like_matches(&sanitize_like_pattern(token)?, key);
    }
    Ok(hit)
}
