//! MP4 (ISO base media file format): the box tree, the movie header and each track's sample
//! tables, with every sample checked to lie inside an `mdat` box.

use super::{be32, be64, MediaError};

/// One track of an MP4.
#[derive(Debug, Clone, PartialEq)]
pub struct Mp4Track {
    /// `hdlr` handler type, e.g. `vide` or `soun`.
    pub handler: String,
    /// The first sample entry's format, e.g. `avc1`.
    pub codec: String,
    /// `tkhd` width, pixels.
    pub width: u32,
    /// `tkhd` height, pixels.
    pub height: u32,
    /// `mdhd` timescale.
    pub timescale: u32,
    /// `mdhd` duration, in `timescale` units.
    pub duration: u64,
    /// Sum of the `stts` deltas, in `timescale` units.
    pub stts_duration: u64,
    /// Number of samples (`stsz`).
    pub samples: usize,
    /// Number of sync samples (`stss`), `None` when every sample is a sync sample.
    pub sync_samples: Option<usize>,
    /// Total bytes of the samples.
    pub sample_bytes: u64,
}

impl Mp4Track {
    /// `mdhd` duration in seconds.
    pub fn duration_secs(&self) -> f64 {
        if self.timescale == 0 {
            0.0
        } else {
            self.duration as f64 / f64::from(self.timescale)
        }
    }
}

/// What a well-formed MP4 holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Mp4Info {
    /// `ftyp` major brand.
    pub major_brand: String,
    /// `ftyp` compatible brands.
    pub compatible_brands: Vec<String>,
    /// The top-level box types, in order.
    pub top_level: Vec<String>,
    /// `mvhd` timescale.
    pub timescale: u32,
    /// `mvhd` duration, in `timescale` units.
    pub duration: u64,
    /// `mvhd` duration, seconds.
    pub duration_secs: f64,
    /// The tracks.
    pub tracks: Vec<Mp4Track>,
}

fn err(r: impl Into<String>) -> MediaError {
    MediaError::new("mp4", r)
}

fn fourcc(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if c.is_ascii_graphic() || c == b' ' {
                c as char
            } else {
                '?'
            }
        })
        .collect()
}

/// The boxes directly inside `b[start..end]`: (type, body start, box end).
fn boxes(b: &[u8], start: usize, end: usize) -> Result<Vec<([u8; 4], usize, usize)>, MediaError> {
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        let size = be32(b, at).ok_or_else(|| err(format!("truncated box at {at}")))?;
        let mut kind = [0u8; 4];
        kind.copy_from_slice(
            b.get(at + 4..at + 8)
                .ok_or_else(|| err("truncated box type"))?,
        );
        let (body, stop) = match size {
            0 => (at + 8, end),
            1 => {
                let large = be64(b, at + 8).ok_or_else(|| err("truncated largesize"))?;
                (
                    at + 16,
                    at.saturating_add(usize::try_from(large).unwrap_or(usize::MAX)),
                )
            }
            n => (at + 8, at.saturating_add(n as usize)),
        };
        if stop > end || body > stop {
            return Err(err(format!(
                "box {} at {at} overruns its parent",
                fourcc(&kind)
            )));
        }
        out.push((kind, body, stop));
        at = stop;
    }
    Ok(out)
}

fn child(b: &[u8], parent: (usize, usize), kind: &[u8; 4]) -> Result<(usize, usize), MediaError> {
    boxes(b, parent.0, parent.1)?
        .into_iter()
        .find(|(k, _, _)| k == kind)
        .map(|(_, s, e)| (s, e))
        .ok_or_else(|| err(format!("missing {} box", fourcc(kind))))
}

fn path(
    b: &[u8],
    mut at: (usize, usize),
    kinds: &[&[u8; 4]],
) -> Result<(usize, usize), MediaError> {
    for k in kinds {
        at = child(b, at, k)?;
    }
    Ok(at)
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, MediaError> {
    be32(b, at).ok_or_else(|| err(format!("truncated field at {at}")))
}

/// (timescale, duration) of an `mvhd` or `mdhd` body, versions 0 and 1.
fn header_times(b: &[u8], body: usize) -> Result<(u32, u64), MediaError> {
    if b.get(body) == Some(&1) {
        let ts = u32_at(b, body + 20)?;
        let d = be64(b, body + 24).ok_or_else(|| err("truncated duration"))?;
        Ok((ts, d))
    } else {
        Ok((u32_at(b, body + 12)?, u64::from(u32_at(b, body + 16)?)))
    }
}

fn track(b: &[u8], trak: (usize, usize), mdats: &[(usize, usize)]) -> Result<Mp4Track, MediaError> {
    let tkhd = child(b, trak, b"tkhd")?;
    if tkhd.1 < tkhd.0 + 8 {
        return Err(err("short tkhd"));
    }
    let width = u32_at(b, tkhd.1 - 8)? >> 16;
    let height = u32_at(b, tkhd.1 - 4)? >> 16;
    let mdia = child(b, trak, b"mdia")?;
    let (timescale, duration) = header_times(b, child(b, mdia, b"mdhd")?.0)?;
    let hdlr = child(b, mdia, b"hdlr")?;
    let handler = fourcc(
        b.get(hdlr.0 + 8..hdlr.0 + 12)
            .ok_or_else(|| err("short hdlr"))?,
    );
    let stbl = path(b, mdia, &[b"minf", b"stbl"])?;
    let stsd = child(b, stbl, b"stsd")?;
    if u32_at(b, stsd.0 + 4)? == 0 {
        return Err(err("stsd has no sample entry"));
    }
    let codec = fourcc(
        b.get(stsd.0 + 12..stsd.0 + 16)
            .ok_or_else(|| err("short stsd"))?,
    );
    let (stts_samples, stts_duration) = time_to_sample(b, stbl)?;
    let sizes = SampleSizes::read(b, stbl)?;
    let count = sizes.count;
    if stts_samples != count as u64 {
        return Err(err(format!(
            "stts counts {stts_samples} samples, stsz {count}"
        )));
    }
    let offsets = chunk_offsets(b, stbl)?;
    let sample_bytes = walk_chunks(b, stbl, &offsets, &sizes, mdats)?;
    let sync_samples = sync_samples(b, stbl, count)?;
    Ok(Mp4Track {
        handler,
        codec,
        width,
        height,
        timescale,
        duration,
        stts_duration,
        samples: count,
        sync_samples,
        sample_bytes,
    })
}

/// The `stts` table: (samples, total duration in the track's timescale).
fn time_to_sample(b: &[u8], stbl: (usize, usize)) -> Result<(u64, u64), MediaError> {
    let stts = child(b, stbl, b"stts")?;
    let (mut stts_samples, mut stts_duration) = (0u64, 0u64);
    for i in 0..u32_at(b, stts.0 + 4)? as usize {
        let at = stts.0 + 8 + i * 8;
        if at + 8 > stts.1 {
            return Err(err("stts overruns its box"));
        }
        let (count, delta) = (u64::from(u32_at(b, at)?), u64::from(u32_at(b, at + 4)?));
        stts_samples += count;
        stts_duration += count * delta;
    }
    Ok((stts_samples, stts_duration))
}

/// The `stsz` table: one fixed size, or a size per sample.
struct SampleSizes<'a> {
    b: &'a [u8],
    stsz: (usize, usize),
    fixed: u32,
    count: usize,
}

impl<'a> SampleSizes<'a> {
    fn read(b: &'a [u8], stbl: (usize, usize)) -> Result<Self, MediaError> {
        let stsz = child(b, stbl, b"stsz")?;
        let fixed = u32_at(b, stsz.0 + 4)?;
        let count = u32_at(b, stsz.0 + 8)? as usize;
        if fixed == 0 && stsz.0 + 12 + count * 4 > stsz.1 {
            return Err(err("stsz overruns its box"));
        }
        Ok(Self {
            b,
            stsz,
            fixed,
            count,
        })
    }

    /// The size of sample `i` (from 0).
    fn size_of(&self, i: usize) -> Result<u64, MediaError> {
        Ok(u64::from(if self.fixed != 0 {
            self.fixed
        } else {
            u32_at(self.b, self.stsz.0 + 12 + i * 4)?
        }))
    }
}

/// The chunk offsets, from `stco` (32-bit) or else `co64`.
fn chunk_offsets(b: &[u8], stbl: (usize, usize)) -> Result<Vec<u64>, MediaError> {
    Ok(match child(b, stbl, b"stco") {
        Ok(stco) => (0..u32_at(b, stco.0 + 4)? as usize)
            .map(|i| u32_at(b, stco.0 + 8 + i * 4).map(u64::from))
            .collect::<Result<_, _>>()?,
        Err(_) => {
            let co64 = child(b, stbl, b"co64")?;
            (0..u32_at(b, co64.0 + 4)? as usize)
                .map(|i| be64(b, co64.0 + 8 + i * 8).ok_or_else(|| err("short co64")))
                .collect::<Result<_, _>>()?
        }
    })
}

/// Walks the chunks (`stsc` runs over `offsets`): every sample must lie inside an `mdat`, and
/// the chunks must hold every sample. Returns the samples' total bytes.
fn walk_chunks(
    b: &[u8],
    stbl: (usize, usize),
    offsets: &[u64],
    sizes: &SampleSizes<'_>,
    mdats: &[(usize, usize)],
) -> Result<u64, MediaError> {
    let count = sizes.count;
    let stsc = child(b, stbl, b"stsc")?;
    let runs: Vec<(u32, u32)> = (0..u32_at(b, stsc.0 + 4)? as usize)
        .map(|i| {
            Ok((
                u32_at(b, stsc.0 + 8 + i * 12)?,
                u32_at(b, stsc.0 + 12 + i * 12)?,
            ))
        })
        .collect::<Result<_, MediaError>>()?;
    let mut sample = 0usize;
    let mut sample_bytes = 0u64;
    for (ci, &offset) in offsets.iter().enumerate() {
        let chunk = ci as u32 + 1;
        let per = runs
            .iter()
            .rev()
            .find(|(first, _)| *first <= chunk)
            .map(|r| r.1)
            .ok_or_else(|| err("stsc does not cover chunk 1"))?;
        let mut at = offset;
        for _ in 0..per {
            if sample >= count {
                break;
            }
            let size = sizes.size_of(sample)?;
            let inside = mdats
                .iter()
                .any(|&(s, e)| at >= s as u64 && at + size <= e as u64);
            if !inside {
                return Err(err(format!(
                    "sample {} lies outside every mdat",
                    sample + 1
                )));
            }
            at += size;
            sample_bytes += size;
            sample += 1;
        }
    }
    if sample != count {
        return Err(err(format!("chunks hold {sample} samples, stsz {count}")));
    }
    Ok(sample_bytes)
}

/// The number of sync samples (`stss`), `None` without one (every sample is a sync sample).
fn sync_samples(b: &[u8], stbl: (usize, usize), count: usize) -> Result<Option<usize>, MediaError> {
    let Ok(stss) = child(b, stbl, b"stss") else {
        return Ok(None);
    };
    let n = u32_at(b, stss.0 + 4)? as usize;
    for i in 0..n {
        let s = u32_at(b, stss.0 + 8 + i * 4)? as usize;
        if s == 0 || s > count {
            return Err(err("stss names a sample that does not exist"));
        }
    }
    Ok(Some(n))
}

/// Parses an MP4: top-level boxes tile the file, `ftyp` comes first, `moov` holds an `mvhd`
/// and at least one `trak`, and each track's sample tables are consistent (stts and stsz
/// agree, every sample lies inside an `mdat`).
pub fn parse_mp4(b: &[u8]) -> Result<Mp4Info, MediaError> {
    let top = boxes(b, 0, b.len())?;
    let top_level: Vec<String> = top.iter().map(|(k, _, _)| fourcc(k)).collect();
    let (kind, fs, fe) = *top.first().ok_or_else(|| err("empty file"))?;
    if &kind != b"ftyp" || fe < fs + 8 {
        return Err(err("first box is not a valid ftyp"));
    }
    let major_brand = fourcc(&b[fs..fs + 4]);
    let compatible_brands = b[fs + 8..fe].chunks_exact(4).map(fourcc).collect();
    let mdats: Vec<(usize, usize)> = top
        .iter()
        .filter(|(k, _, _)| k == b"mdat")
        .map(|&(_, s, e)| (s, e))
        .collect();
    let moov = top
        .iter()
        .find(|(k, _, _)| k == b"moov")
        .map(|&(_, s, e)| (s, e))
        .ok_or_else(|| err("no moov box"))?;
    let (timescale, duration) = header_times(b, child(b, moov, b"mvhd")?.0)?;
    if timescale == 0 {
        return Err(err("mvhd timescale is 0"));
    }
    let mut tracks = Vec::new();
    for (k, s, e) in boxes(b, moov.0, moov.1)? {
        if &k == b"trak" {
            tracks.push(track(b, (s, e), &mdats)?);
        }
    }
    if tracks.is_empty() {
        return Err(err("moov has no trak"));
    }
    Ok(Mp4Info {
        major_brand,
        compatible_brands,
        top_level,
        timescale,
        duration,
        duration_secs: duration as f64 / f64::from(timescale),
        tracks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_mp4(b"").is_err());
        assert!(parse_mp4(&[0, 0, 0, 8, b'f', b't', b'y', b'p']).is_err());
        assert!(parse_mp4(&[0, 0, 0, 99, b'f', b't', b'y', b'p']).is_err());
    }
}
