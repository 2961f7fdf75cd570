//! A `.cubex` file: a tar archive (gzipped or not) of `anchor.xml` (itself
//! gzipped or not) and the metrics' `<id>.index` and `<id>.data`, read
//! once and in order; the anchor may come before or after the data.

use super::anchor::{self, ANCHOR_LIMIT, Anchor, MetricDef};
use crate::fit::extrap_io::ExtrapError;
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

const BLOCK: u64 = 512;
/// The most a gzipped `.cubex` inflates to: 4 GiB (a gzipped tar cannot
/// say how large its members are before they are read).
const GZIP_LIMIT: u64 = 4 << 30;

/// The index and data members of one metric, as stored.
#[derive(Debug, Default)]
pub(super) struct Members {
    pub(super) index: Option<Vec<u8>>,
    pub(super) data: Option<Vec<u8>>,
}

/// What a `.cubex` holds: the anchor, and the members of the metrics
/// wanted (by metric id).
#[derive(Debug)]
pub(super) struct Archive {
    pub(super) anchor: Anchor,
    pub(super) members: HashMap<u64, Members>,
}

/// An error of `part` (a member, `tar` for the archive itself) of `file`.
pub(super) fn error(file: &Path, part: &str, message: impl Into<String>) -> ExtrapError {
    ExtrapError::Archive {
        file: file.to_path_buf(),
        part: part.to_string(),
        message: message.into(),
    }
}

/// Reads a `.cubex`, keeping the members of the metrics `wanted` says yes
/// to (all members seen before the anchor are kept: their metrics are not
/// known yet).
pub(super) fn read(
    path: &Path,
    wanted: &dyn Fn(&MetricDef) -> bool,
) -> Result<Archive, ExtrapError> {
    let file = std::fs::File::open(path).map_err(|source| ExtrapError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut input = BufReader::new(file);
    let head = input.fill_buf().map_err(|source| ExtrapError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let stream: Box<dyn Read> = if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(Capped {
            inner: flate2::bufread::MultiGzDecoder::new(input),
            left: GZIP_LIMIT,
        })
    } else if head.starts_with(b"BZh") || head.starts_with(b"\xfd7zXZ\0") {
        return Err(error(
            path,
            "tar",
            "compressed with bzip2 or xz, which this reader does not inflate: decompress it first",
        ));
    } else {
        Box::new(input)
    };
    let position = Rc::new(Cell::new(0));
    let stream = Blocks::new(stream, position.clone());
    let mut reader = Reader {
        path,
        wanted,
        position,
        anchor: None,
        metric_at: HashMap::new(),
        members: HashMap::new(),
    };
    reader.entries(tar::Archive::new(stream))?;
    let anchor = reader
        .anchor
        .ok_or_else(|| error(path, "anchor.xml", "no anchor.xml in the archive"))?;
    let mut ids: Vec<u64> = reader.members.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        if !reader.metric_at.contains_key(&id) {
            let kind = if reader.members[&id].index.is_some() {
                "index"
            } else {
                "data"
            };
            let part = format!("{id}.{kind}");
            return Err(error(
                path,
                &part,
                format!("the anchor has no metric with id {id}"),
            ));
        }
    }
    Ok(Archive {
        anchor,
        members: reader.members,
    })
}

struct Reader<'a> {
    path: &'a Path,
    wanted: &'a dyn Fn(&MetricDef) -> bool,
    position: Rc<Cell<u64>>,
    anchor: Option<Anchor>,
    /// The anchor's metrics by id.
    metric_at: HashMap<u64, usize>,
    members: HashMap<u64, Members>,
}

/// A member named `<id>.index` or `<id>.data` (with `id` written as
/// Extra-P's reader looks for it: decimal, no leading zeros).
fn metric_member(name: &str) -> Option<(u64, bool)> {
    let (stem, is_index) = if let Some(s) = name.strip_suffix(".index") {
        (s, true)
    } else {
        (name.strip_suffix(".data")?, false)
    };
    let id: u64 = stem.parse().ok()?;
    (id.to_string() == stem).then_some((id, is_index))
}

impl Reader<'_> {
    fn tar_error(&self, e: std::io::Error) -> ExtrapError {
        let at = self.position.get();
        error(
            self.path,
            "tar",
            format!("corrupt or truncated tar near byte {at}: {e}"),
        )
    }

    fn entries(&mut self, mut archive: tar::Archive<Blocks>) -> Result<(), ExtrapError> {
        let entries = archive.entries().map_err(|e| self.tar_error(e))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| self.tar_error(e))?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let name = name.strip_prefix("./").unwrap_or(&name).to_string();
            let size = entry.size();
            if name == "anchor.xml" {
                if self.anchor.is_some() {
                    return Err(error(self.path, &name, "a second anchor.xml"));
                }
                if size > ANCHOR_LIMIT {
                    let message = format!("{size} bytes, past the limit of {ANCHOR_LIMIT}");
                    return Err(error(self.path, &name, message));
                }
                let bytes = self.member(&mut entry, &name, size, true)?;
                let anchor = self.parse_anchor(bytes)?;
                self.metric_at = anchor
                    .metrics
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (m.id, i))
                    .collect();
                self.anchor = Some(anchor);
                continue;
            }
            let keep = match (metric_member(&name), &self.anchor) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some((id, _)), Some(anchor)) => match self.metric_at.get(&id) {
                    Some(&m) => (self.wanted)(&anchor.metrics[m]),
                    None => {
                        let message = format!("the anchor has no metric with id {id}");
                        return Err(error(self.path, &name, message));
                    }
                },
            };
            let bytes = self.member(&mut entry, &name, size, keep)?;
            if let (true, Some((id, is_index))) = (keep, metric_member(&name)) {
                let slot = self.members.entry(id).or_default();
                let slot = if is_index {
                    &mut slot.index
                } else {
                    &mut slot.data
                };
                if slot.replace(bytes).is_some() {
                    return Err(error(self.path, &name, "a second member of this name"));
                }
            }
        }
        Ok(())
    }

    /// Reads a member whole (kept) or through (not kept), checking that it
    /// has the size its header says: the tar reader stops quietly at the
    /// end of a truncated file.
    fn member(
        &self,
        entry: &mut tar::Entry<'_, Blocks>,
        name: &str,
        size: u64,
        keep: bool,
    ) -> Result<Vec<u8>, ExtrapError> {
        let mut bytes = Vec::new();
        let read = if keep {
            entry.read_to_end(&mut bytes).map(|n| n as u64)
        } else {
            std::io::copy(entry, &mut std::io::sink())
        };
        let read = read.map_err(|e| error(self.path, name, format!("cannot be read: {e}")))?;
        if read != size {
            let message = format!("truncated: {read} of its {size} bytes");
            return Err(error(self.path, name, message));
        }
        Ok(bytes)
    }

    fn parse_anchor(&self, bytes: Vec<u8>) -> Result<Anchor, ExtrapError> {
        let part = "anchor.xml";
        // pycubexr takes an anchor that does not start with `<?xml` as
        // gzipped; the gzip magic says it better.
        let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut inflated = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .take(ANCHOR_LIMIT + 1)
                .read_to_end(&mut inflated)
                .map_err(|e| error(self.path, part, format!("corrupt gzip: {e}")))?;
            if inflated.len() as u64 > ANCHOR_LIMIT {
                let message = format!("inflates past the limit of {ANCHOR_LIMIT} bytes");
                return Err(error(self.path, part, message));
            }
            inflated
        } else {
            bytes
        };
        anchor::parse(&bytes).map_err(|e| {
            let (line, column) = anchor::line_column(&bytes, e.offset);
            let message = format!("line {line}, column {column}: {}", e.message);
            error(self.path, part, message)
        })
    }
}

/// A reader that fails past `left` more bytes (a gzip bomb is an error,
/// not a hang or an exhausted memory).
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::other(format!(
                "the gzipped archive inflates past {GZIP_LIMIT} bytes"
            ))
        })?;
        Ok(n)
    }
}

/// The archive's bytes, counted (for the positions of errors), with the
/// header checksums that CubeWriter 4.8 writes 32 too small put right, as
/// pycubexr does; any other mismatch is left for the tar reader to report.
/// Headers are followed only through plain members: after a PAX or sparse
/// header (whose sizes this does not work out) nothing is changed.
struct Blocks {
    inner: Box<dyn Read>,
    position: Rc<Cell<u64>>,
    next_header: Option<u64>,
    block: [u8; BLOCK as usize],
    staged: std::ops::Range<usize>,
}

impl Blocks {
    fn new(inner: Box<dyn Read>, position: Rc<Cell<u64>>) -> Blocks {
        Blocks {
            inner,
            position,
            next_header: Some(0),
            block: [0; BLOCK as usize],
            staged: 0..0,
        }
    }

    /// Reads the header block at the current position and works out where
    /// the next one is.
    fn stage_header(&mut self, at: u64) -> std::io::Result<()> {
        let mut filled = 0;
        while filled < self.block.len() {
            match self.inner.read(&mut self.block[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        self.staged = 0..filled;
        self.next_header = None;
        if filled < self.block.len() || self.block.iter().all(|&b| b == 0) {
            return Ok(());
        }
        let header = tar::Header::from_byte_slice(&self.block);
        let kind = header.entry_type();
        if kind.is_pax_local_extensions() || kind.is_pax_global_extensions() || kind.is_gnu_sparse()
        {
            return Ok(());
        }
        let stored = header.cksum().ok();
        let sum: u32 = self.block[..148]
            .iter()
            .chain(&self.block[156..])
            .map(|&b| u32::from(b))
            .sum::<u32>()
            + 8 * 32;
        if stored.is_some_and(|s| s != sum && s + 32 == sum) {
            let field = format!("{sum:06o}\0 ");
            self.block[148..156].copy_from_slice(field.as_bytes());
        }
        let header = tar::Header::from_byte_slice(&self.block);
        if let Ok(size) = header.entry_size() {
            let padded = size.checked_add(BLOCK - 1).map(|s| s / BLOCK * BLOCK);
            self.next_header = padded.and_then(|p| at.checked_add(BLOCK + p));
        }
        Ok(())
    }
}

impl Read for Blocks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let at = self.position.get();
        if self.staged.is_empty() && self.next_header == Some(at) {
            self.stage_header(at)?;
        }
        let n = if !self.staged.is_empty() {
            let n = out.len().min(self.staged.len());
            out[..n].copy_from_slice(&self.block[self.staged.start..self.staged.start + n]);
            self.staged.start += n;
            n
        } else {
            // Stop at the next header, to stage it.
            let limit = match self.next_header {
                Some(h) => usize::try_from(h.saturating_sub(at))
                    .unwrap_or(usize::MAX)
                    .min(out.len()),
                None => out.len(),
            };
            self.inner.read(&mut out[..limit])?
        };
        self.position.set(at + n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
