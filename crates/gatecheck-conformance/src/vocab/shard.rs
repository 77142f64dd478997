//! `--shard k/n`: a deterministic split of the checks across CI jobs.

use gatecheck_schemas::rules::media::fnv1a;
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1..=count.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

/// A malformed `k/n`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shard `{0}`: expected k/n with 1 <= k <= n")]
pub struct InvalidShard(pub String);

impl FromStr for Shard {
    type Err = InvalidShard;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || InvalidShard(s.to_owned());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether the check `id` belongs to this shard: FNV-1a of the id, modulo `count`. A check
    /// keeps its shard when others are added or removed.
    pub fn contains(&self, id: &str) -> bool {
        (fnv1a(id.as_bytes()) % u64::from(self.count)) as u32 == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_ids() {
        let ids = ["a", "b", "c", "auth.v1.x", "token.y", "video.z"];
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for id in ids {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1);
        }
        assert!("0/2".parse::<Shard>().is_err());
        assert!("3/2".parse::<Shard>().is_err());
        assert_eq!("2/5".parse::<Shard>().unwrap().to_string(), "2/5");
    }
}
