//! Paging and filtering of `GET /api/models`.

use crate::types::{CatalogEnvelope, ModelRecord};

/// The default page size.
pub const DEFAULT_PAGE_SIZE: i64 = 20;
/// The largest page size; larger requests are clamped to it.
pub const MAX_PAGE_SIZE: i64 = 100;
/// The largest page number the documented profile takes (a 64-bit integer); larger ones are
/// answered 400 like any other page number out of range.
pub const MAX_PAGE: i64 = i64::MAX;

/// The query of `GET /api/models`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CatalogQuery {
    /// 1-based page (`p` or `page`; missing, non-numeric or < 1 means 1).
    pub page: i64,
    /// Page size (`page_size`; missing, non-numeric or < 1 means [`DEFAULT_PAGE_SIZE`]).
    pub page_size: i64,
    /// Exact `model_type` filter.
    pub model_type: Option<String>,
    /// Exact `provider_code` filter.
    pub provider_code: Option<String>,
}

impl CatalogQuery {
    /// Parses a raw query string (`a=b&c=d`, percent-decoding `+` and `%XX`).
    ///
    /// ```
    /// use gatecheck_schemas::rules::catalog::CatalogQuery;
    /// let q = CatalogQuery::parse("p=2&page_size=3&model_type=video");
    /// assert_eq!((q.page, q.page_size, q.model_type.as_deref()), (2, 3, Some("video")));
    /// assert_eq!(CatalogQuery::parse("").page, 1);
    /// ```
    pub fn parse(query: &str) -> Self {
        let mut page = None;
        let mut page_size = None;
        let mut q = Self::default();
        for (k, v) in query_pairs(query) {
            match k.as_str() {
                "p" | "page" => page = v.trim().parse::<i64>().ok(),
                "page_size" | "size" => page_size = v.trim().parse::<i64>().ok(),
                "model_type" if !v.is_empty() => q.model_type = Some(v),
                "provider_code" if !v.is_empty() => q.provider_code = Some(v),
                _ => {}
            }
        }
        q.page = page.filter(|p| *p >= 1).unwrap_or(1);
        q.page_size = page_size
            .filter(|s| *s >= 1)
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .min(MAX_PAGE_SIZE);
        q
    }

    /// Whether a record passes the filters.
    ///
    /// ```
    /// use gatecheck_schemas::rules::catalog::CatalogQuery;
    /// let q = CatalogQuery::parse("model_type=image");
    /// assert_eq!(q.model_type.as_deref(), Some("image"));
    /// ```
    pub fn matches(&self, m: &ModelRecord) -> bool {
        self.model_type.as_deref().is_none_or(|t| m.model_type == t)
            && self
                .provider_code
                .as_deref()
                .is_none_or(|p| m.provider_code == p)
    }
}

/// The envelope `GET /api/models` answers for `query` over `models` (catalog order kept).
///
/// ```
/// use gatecheck_schemas::rules::catalog::{page, CatalogQuery};
/// let env = page(&[], &CatalogQuery::parse("p=3"));
/// assert!(env.success && env.data.is_empty() && env.page == 3 && env.total == 0);
/// ```
pub fn page(models: &[ModelRecord], query: &CatalogQuery) -> CatalogEnvelope {
    let matching: Vec<&ModelRecord> = models.iter().filter(|m| query.matches(m)).collect();
    let start = ((query.page - 1).saturating_mul(query.page_size)).max(0) as usize;
    let data = matching
        .iter()
        .skip(start)
        .take(query.page_size as usize)
        .map(|m| (*m).clone())
        .collect();
    CatalogEnvelope {
        success: true,
        page: query.page,
        page_size: query.page_size,
        total: matching.len() as i64,
        data,
    }
}

/// The paging parameters of a listing query (`p`/`page`, `page_size`/`size`) in the
/// documented profile: each present one must be an integer, pages from 1, sizes from 1 to
/// [`MAX_PAGE_SIZE`]. The message names the first that is not (answered 400 with the `/api`
/// failure envelope). new-api instead normalises them ([`CatalogQuery::parse`]).
///
/// ```
/// use gatecheck_schemas::rules::catalog::check_paging;
/// assert!(check_paging("p=2&page_size=100&model_type=video").is_ok());
/// assert!(check_paging("page_size=0").is_err());
/// assert!(check_paging("p=x").is_err());
/// assert!(check_paging("size=101").is_err());
/// ```
pub fn check_paging(query: &str) -> Result<(), String> {
    for (k, v) in query_pairs(query) {
        let max = match k.as_str() {
            "p" | "page" => MAX_PAGE,
            "page_size" | "size" => MAX_PAGE_SIZE,
            _ => continue,
        };
        match v.trim().parse::<i64>() {
            Ok(n) if (1..=max).contains(&n) => {}
            _ if max == MAX_PAGE => return Err(format!("{k} must be an integer from 1")),
            _ => return Err(format!("{k} must be an integer from 1 to {max}")),
        }
    }
    Ok(())
}

/// Splits and percent-decodes a query string into pairs.
///
/// ```
/// use gatecheck_schemas::rules::catalog::query_pairs;
/// assert_eq!(query_pairs("a=1&b=x%20y+z"), vec![("a".into(), "1".into()), ("b".into(), "x y z".into())]);
/// ```
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}
