//! A metric's binary members: `<id>.index` (which call-tree positions have
//! values, and the byte order of both files) and `<id>.data` (one value per
//! listed position and location, plain or zlib-compressed in segments).
//! Errors are messages naming the byte offset; the caller adds the file
//! and the member.

use flate2::{Decompress, FlushDecompress, Status};

const INDEX_MARK: &[u8] = b"CUBEX.INDEX";
const DATA_MARK: &[u8] = b"CUBEX.DATA";
const ZDATA_MARK: &[u8] = b"ZCUBEX.DATA";
/// The only index format this reader knows the layout of (a list of
/// positions); CubeLib's other one, dense, is not read by Extra-P either.
const SPARSE_INDEX: u8 = 1;
/// Largest `UINT64` that survives CubeLib's round trip through a double;
/// larger values read as 0 there, and so in Extra-P and here.
const MAX_UINT64_DOUBLE: u64 = 0xFFFF_FFFF_FFFF_FBFF;

/// Byte order of a metric's index and data, told by the index's mark `1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Endian {
    Little,
    Big,
}

/// How the values of a cnode's children combine with its own in the
/// inclusive/exclusive conversions (pycubexr's semantics, which Extra-P
/// uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Combine {
    /// Added; subtracting a child clamps at 0 for unsigned types.
    Sum { unsigned: bool },
    /// `MINDOUBLE`: the minimum, a child of all zeros left out.
    Min,
    /// `MAXDOUBLE`: the maximum, a child of all zeros left out.
    Max,
}

/// How one value is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F64,
}

impl Repr {
    fn size(self) -> usize {
        match self {
            Repr::U8 | Repr::I8 => 1,
            Repr::U16 | Repr::I16 => 2,
            Repr::U32 | Repr::I32 => 4,
            Repr::U64 | Repr::I64 | Repr::F64 => 8,
        }
    }
}

/// A metric's `<dtype>` that this reader can turn into one number per
/// location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dtype {
    repr: Repr,
    pub(super) combine: Combine,
}

impl Dtype {
    /// The dtype named by a `<dtype>` text (pycubexr's table), or why it
    /// cannot be read as one number per location.
    pub(super) fn parse(name: &str) -> Result<Dtype, String> {
        let sum = |repr, unsigned| {
            Ok(Dtype {
                repr,
                combine: Combine::Sum { unsigned },
            })
        };
        match name.trim() {
            "CHAR" | "UINT8" => sum(Repr::U8, true),
            "INT8" => sum(Repr::I8, false),
            "UINT16" | "UNSIGNED SHORT INT" => sum(Repr::U16, true),
            "INT16" | "SHORT INT" | "SIGNED SHORT INT" => sum(Repr::I16, false),
            "UINT32" | "UNSIGNED INT" => sum(Repr::U32, true),
            "INT" | "INT32" | "SIGNED INT" => sum(Repr::I32, false),
            "UINT64" | "UNSIGNED INTEGER" => sum(Repr::U64, true),
            "INT64" | "INTEGER" | "SIGNED INTEGER" => sum(Repr::I64, false),
            // CUBE's FLOAT is a double too.
            "DOUBLE" | "FLOAT" => sum(Repr::F64, false),
            "MINDOUBLE" => Ok(Dtype {
                repr: Repr::F64,
                combine: Combine::Min,
            }),
            "MAXDOUBLE" => Ok(Dtype {
                repr: Repr::F64,
                combine: Combine::Max,
            }),
            "COMPLEX" => {
                Err("dtype COMPLEX holds two numbers (real and imaginary) per location".into())
            }
            "RATE" => Err("dtype RATE holds two numbers (main and time) per location".into()),
            "TAU_ATOMIC" => Err(
                "dtype TAU_ATOMIC holds five numbers (n, min, max, sum, sum2) per location".into(),
            ),
            "" => Err("no <dtype>".into()),
            other if other.starts_with("NDOUBLES") || other.starts_with("HISTOGRAM") => {
                Err(format!("dtype {other} holds several numbers per location"))
            }
            other => Err(format!("unknown dtype `{other}`")),
        }
    }

    /// Bytes per value.
    pub(super) fn size(self) -> usize {
        self.repr.size()
    }

    fn decode(self, b: &[u8], endian: Endian) -> f64 {
        // `b` has exactly `self.size()` bytes (the callers chunk by it).
        fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
            let mut a = [0; N];
            a.copy_from_slice(&b[..N]);
            a
        }
        macro_rules! num {
            ($t:ty) => {{
                let a = arr(b);
                match endian {
                    Endian::Little => <$t>::from_le_bytes(a),
                    Endian::Big => <$t>::from_be_bytes(a),
                }
            }};
        }
        match self.repr {
            Repr::U8 => f64::from(b[0]),
            Repr::I8 => f64::from(b[0] as i8),
            Repr::U16 => f64::from(num!(u16)),
            Repr::I16 => f64::from(num!(i16)),
            Repr::U32 => f64::from(num!(u32)),
            Repr::I32 => f64::from(num!(i32)),
            Repr::U64 => {
                let v = num!(u64);
                if v > MAX_UINT64_DOUBLE { 0.0 } else { v as f64 }
            }
            Repr::I64 => num!(i64) as f64,
            Repr::F64 => num!(f64),
        }
    }
}

/// A parsed `<id>.index`: the byte order and the listed call-tree
/// positions, in the order of the data's rows.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Index {
    pub(super) endian: Endian,
    pub(super) positions: Vec<u32>,
}

fn take<'a>(bytes: &'a [u8], at: usize, n: usize, what: &str) -> Result<&'a [u8], String> {
    at.checked_add(n)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| {
            format!(
                "ends at byte {} inside the {what} (bytes {at}..{})",
                bytes.len(),
                at.saturating_add(n)
            )
        })
}

fn i32_at(bytes: &[u8], at: usize, endian: Endian, what: &str) -> Result<i32, String> {
    let mut a = [0; 4];
    a.copy_from_slice(take(bytes, at, 4, what)?);
    Ok(match endian {
        Endian::Little => i32::from_le_bytes(a),
        Endian::Big => i32::from_be_bytes(a),
    })
}

fn i64_at(bytes: &[u8], at: usize, endian: Endian, what: &str) -> Result<i64, String> {
    let mut a = [0; 8];
    a.copy_from_slice(take(bytes, at, 8, what)?);
    Ok(match endian {
        Endian::Little => i64::from_le_bytes(a),
        Endian::Big => i64::from_be_bytes(a),
    })
}

/// Parses an index: mark, the number 1 (its byte order is the files'),
/// a version (2 bytes), the format (1 byte, sparse), the count `n`, then
/// `n` positions (4 bytes each) and nothing after.
pub(super) fn parse_index(bytes: &[u8]) -> Result<Index, String> {
    let mark = take(bytes, 0, INDEX_MARK.len(), "mark CUBEX.INDEX")?;
    if mark != INDEX_MARK {
        return Err(format!(
            "byte 0: starts with {:?}, not CUBEX.INDEX",
            String::from_utf8_lossy(mark)
        ));
    }
    let at = INDEX_MARK.len();
    let endian = match i32_at(bytes, at, Endian::Little, "byte-order mark")? {
        1 => Endian::Little,
        0x0100_0000 => Endian::Big,
        other => {
            return Err(format!(
                "byte {at}: the byte-order mark is {other:#010x}, not 1 in either byte order"
            ));
        }
    };
    let format = take(bytes, at + 6, 1, "index format")?[0];
    if format != SPARSE_INDEX {
        return Err(format!(
            "byte {}: index format {format}, not the sparse format ({SPARSE_INDEX}) this reader and Extra-P read",
            at + 6
        ));
    }
    let count_at = at + 7;
    let count = i32_at(bytes, count_at, endian, "count of positions")?;
    let count = usize::try_from(count)
        .map_err(|_| format!("byte {count_at}: negative count of positions {count}"))?;
    let start = count_at + 4;
    let expected = count
        .checked_mul(4)
        .and_then(|n| n.checked_add(start))
        .ok_or_else(|| format!("byte {count_at}: count of positions {count} overflows"))?;
    if bytes.len() != expected {
        return Err(format!(
            "byte {start}: {count} positions need {} bytes after the header, the member has {}",
            expected - start,
            bytes.len().saturating_sub(start)
        ));
    }
    let mut positions = Vec::with_capacity(count);
    for k in 0..count {
        let at = start + 4 * k;
        let p = i32_at(bytes, at, endian, "positions")?;
        let p = u32::try_from(p).map_err(|_| format!("byte {at}: negative position {p}"))?;
        positions.push(p);
    }
    Ok(Index { endian, positions })
}

/// Parses a data member of `rows` rows (the index's count) of `locations`
/// values each: every value as `f64`, row-major. The size must be exactly
/// `rows · locations · size`; compressed data are never inflated past it.
pub(super) fn parse_data(
    bytes: &[u8],
    endian: Endian,
    rows: usize,
    locations: u64,
    dtype: Dtype,
) -> Result<Vec<f64>, String> {
    let expected = usize::try_from(locations)
        .ok()
        .and_then(|l| l.checked_mul(rows))
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| {
            format!(
                "{rows} rows × {locations} locations × {} bytes overflow",
                dtype.size()
            )
        })?;
    let raw;
    let body: &[u8] = if bytes.starts_with(ZDATA_MARK) {
        raw = inflate_segments(bytes, endian, expected)?;
        &raw
    } else if bytes.starts_with(DATA_MARK) {
        let body = &bytes[DATA_MARK.len()..];
        if body.len() != expected {
            return Err(format!(
                "byte {}: {} bytes of values, but {rows} rows × {locations} locations × {} bytes = {expected}",
                DATA_MARK.len(),
                body.len(),
                dtype.size()
            ));
        }
        body
    } else {
        let head = &bytes[..bytes.len().min(ZDATA_MARK.len())];
        return Err(format!(
            "byte 0: starts with {:?}, not CUBEX.DATA or ZCUBEX.DATA",
            String::from_utf8_lossy(head)
        ));
    };
    Ok(body
        .chunks_exact(dtype.size())
        .map(|b| dtype.decode(b, endian))
        .collect())
}

/// Inflates a ZCUBEX.DATA member: after the mark, a count (8 bytes), that
/// many headers of three 8-byte numbers (uncompressed position, compressed
/// position, compressed size), then the zlib segments in header order.
/// The positions are not used (as CubeLib's and pycubexr's readers).
fn inflate_segments(bytes: &[u8], endian: Endian, expected: usize) -> Result<Vec<u8>, String> {
    let count_at = ZDATA_MARK.len();
    let count = i64_at(bytes, count_at, endian, "count of segments")?;
    let count = usize::try_from(count)
        .map_err(|_| format!("byte {count_at}: negative count of segments {count}"))?;
    let headers_at = count_at + 8;
    let headers_len = count
        .checked_mul(24)
        .filter(|&n| n <= bytes.len().saturating_sub(headers_at))
        .ok_or_else(|| {
            format!(
                "byte {count_at}: {count} segment headers do not fit in the member's {} bytes",
                bytes.len()
            )
        })?;
    let mut at = headers_at + headers_len;
    let mut out = Vec::new();
    for k in 0..count {
        let size_at = headers_at + 24 * k + 16;
        let size = i64_at(bytes, size_at, endian, "segment headers")?;
        let size = usize::try_from(size)
            .map_err(|_| format!("byte {size_at}: negative segment size {size}"))?;
        let segment = take(bytes, at, size, &format!("segment {k}"))?;
        if size > 0 {
            inflate_into(segment, &mut out, expected)
                .map_err(|m| format!("segment {k} at byte {at}: {m}"))?;
        }
        at += size;
    }
    if at != bytes.len() {
        return Err(format!(
            "byte {at}: {} bytes after the last segment",
            bytes.len() - at
        ));
    }
    if out.len() != expected {
        return Err(format!(
            "the segments inflate to {} bytes, but the index and the locations say {expected}",
            out.len()
        ));
    }
    Ok(out)
}

/// Inflates one complete zlib stream onto `out`, refusing to let `out`
/// grow past `limit` bytes (a stream that would is an error, never a
/// larger allocation).
fn inflate_into(segment: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), String> {
    let mut z = Decompress::new(true);
    loop {
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let used = usize::try_from(in_before).unwrap_or(usize::MAX);
        let input = segment.get(used..).unwrap_or_default();
        // Room for what may still come, plus one byte to see an excess; in
        // windows of 1 MiB so that memory follows what really inflates.
        let window = limit
            .saturating_sub(out.len())
            .saturating_add(1)
            .min(1 << 20);
        let start = out.len();
        out.resize(start + window, 0);
        let status = z.decompress(input, &mut out[start..], FlushDecompress::Finish);
        let produced = usize::try_from(z.total_out() - out_before).unwrap_or(usize::MAX);
        out.truncate(start + produced.min(window));
        let status = status.map_err(|e| format!("corrupt zlib stream: {e}"))?;
        if out.len() > limit {
            return Err(format!(
                "inflates past the {limit} bytes the index and the locations say"
            ));
        }
        match status {
            Status::StreamEnd => {
                let used = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
                return if used == segment.len() {
                    Ok(())
                } else {
                    Err(format!(
                        "{} bytes after the end of its zlib stream",
                        segment.len().saturating_sub(used)
                    ))
                };
            }
            Status::Ok | Status::BufError if produced == 0 && z.total_in() == in_before => {
                return Err("truncated zlib stream".into());
            }
            Status::Ok | Status::BufError => {}
        }
    }
}

#[cfg(test)]
mod tests;
