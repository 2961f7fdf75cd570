//! The repetitions an Extra-P experiment file keeps beside its JSON: chunks
//! `values/N.vals` of NumPy arrays (`.npy`, one per measurement) after a
//! 16-byte magic, and `values/N.indx`, a magic, the count and each array's
//! offset in the chunk (little-endian `u64`s). A measurement names its
//! array as `[chunk, index]`.

/// The magic at the start of a chunk of arrays.
pub(super) const VALUES_MAGIC: &[u8; 16] = b"Extra-P VALUES\0\0";
/// The magic at the start of a chunk's index.
pub(super) const INDEX_MAGIC: &[u8; 16] = b"Extra-P INDEX\0\0\0";
/// NumPy's magic (`.npy` format, versions 1 to 3).
const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The offsets of a chunk's arrays, read from its index.
pub(super) fn read_index(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let rest = bytes
        .strip_prefix(INDEX_MAGIC.as_slice())
        .ok_or("not an Extra-P index: the magic `Extra-P INDEX` is missing")?;
    let count = u64_at(rest, 0).ok_or("byte 16: the count of arrays is cut short")?;
    let available = (rest.len() - 8) / 8;
    if count > available as u64 {
        return Err(format!(
            "byte 16: {count} arrays announced, the index holds {available}"
        ));
    }
    Ok((0..count as usize)
        .map(|i| u64_at(rest, 8 + 8 * i).unwrap_or(0))
        .collect())
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let word: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(word))
}

/// The array starting at `offset` of a chunk (the offset counts the magic),
/// as `f64`s: float, integer or unsigned arrays of one dimension, of either
/// byte order.
pub(super) fn read_array(chunk: &[u8], offset: u64) -> Result<Vec<f64>, String> {
    let at = usize::try_from(offset)
        .ok()
        .filter(|&at| at >= VALUES_MAGIC.len() && at < chunk.len())
        .ok_or_else(|| format!("offset {offset} is outside the chunk"))?;
    if !chunk.starts_with(VALUES_MAGIC) {
        return Err("not an Extra-P chunk: the magic `Extra-P VALUES` is missing".into());
    }
    let array = &chunk[at..];
    let fail = |what: String| format!("byte {offset}: {what}");
    if !array.starts_with(NPY_MAGIC) || array.len() < 10 {
        return Err(fail("not a NumPy array".into()));
    }
    let (header_len, header_at) = match array[6] {
        1 => (u16::from_le_bytes([array[8], array[9]]) as usize, 10),
        2 | 3 => {
            let word = array.get(8..12).ok_or_else(|| fail("cut short".into()))?;
            (
                u32::from_le_bytes(word.try_into().unwrap_or_default()) as usize,
                12,
            )
        }
        v => return Err(fail(format!("NumPy format version {v} is not 1, 2 or 3"))),
    };
    let header = array
        .get(header_at..header_at + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| fail("the array's header is cut short or not text".into()))?;
    let (dtype, len) = parse_header(header).map_err(fail)?;
    let data = &array[header_at + header_len..];
    let bytes = len
        .checked_mul(dtype.size)
        .filter(|&n| n <= data.len())
        .ok_or_else(|| fail(format!("{len} values announced, the chunk ends before")))?;
    Ok(data[..bytes]
        .chunks_exact(dtype.size)
        .map(|b| dtype.decode(b))
        .collect())
}

/// An array's element type: `<f8`, `>i4`, `|u1`...
#[derive(Clone, Copy, Debug, PartialEq)]
struct Dtype {
    kind: u8,
    size: usize,
    little: bool,
}

impl Dtype {
    fn parse(descr: &str) -> Option<Dtype> {
        let b = descr.as_bytes();
        let (order, kind, size) = (b.first()?, b.get(1)?, descr.get(2..)?.parse().ok()?);
        let little = match order {
            b'<' | b'|' => true,
            b'>' => false,
            _ => return None,
        };
        let fits = match kind {
            b'f' => matches!(size, 4 | 8),
            b'i' | b'u' => matches!(size, 1 | 2 | 4 | 8),
            _ => false,
        };
        fits.then_some(Dtype {
            kind: *kind,
            size,
            little,
        })
    }

    fn decode(self, bytes: &[u8]) -> f64 {
        let mut word = [0u8; 8];
        if self.little {
            word[..self.size].copy_from_slice(bytes);
        } else {
            for (w, b) in word.iter_mut().zip(bytes.iter().rev()) {
                *w = *b;
            }
        }
        let raw = u64::from_le_bytes(word);
        let bits = 8 * self.size as u32;
        match (self.kind, self.size) {
            (b'f', 4) => f32::from_bits(raw as u32) as f64,
            (b'f', _) => f64::from_bits(raw),
            (b'i', _) => ((raw << (64 - bits)) as i64 >> (64 - bits)) as f64,
            _ => raw as f64,
        }
    }
}

/// The element type and length of a `.npy` header, a Python dict literal:
/// `{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }`.
fn parse_header(header: &str) -> Result<(Dtype, usize), String> {
    let value_of = |key: &str| {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = value_of("descr")
        .and_then(|r| r.strip_prefix('\''))
        .and_then(|r| r.split('\'').next())
        .ok_or("the array's header has no `descr`")?;
    let dtype = Dtype::parse(descr).ok_or_else(|| {
        format!("element type `{descr}` is not a number (float, int or uint of 1 to 8 bytes)")
    })?;
    // `fortran_order` is not read: one dimension, the only one accepted,
    // reads the same in either order.
    let shape = value_of("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .ok_or("the array's header has no `shape`")?;
    let dims: Vec<&str> = shape
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    match dims.as_slice() {
        [len] => len
            .parse()
            .map(|len| (dtype, len))
            .map_err(|_| format!("shape `({shape})` is not a length")),
        _ => Err(format!(
            "shape `({shape})`: only arrays of one dimension hold repetitions"
        )),
    }
}

/// Writes arrays of `f64` as one chunk and its index (NumPy format 1.0,
/// `<f8`), as Extra-P does; `(chunk, index)` bytes.
pub(super) fn write_chunk(arrays: &[&[f64]]) -> (Vec<u8>, Vec<u8>) {
    let mut chunk = VALUES_MAGIC.to_vec();
    let mut index = INDEX_MAGIC.to_vec();
    index.extend_from_slice(&(arrays.len() as u64).to_le_bytes());
    for values in arrays {
        index.extend_from_slice(&(chunk.len() as u64).to_le_bytes());
        let mut header = format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': ({},), }}",
            values.len()
        );
        // NumPy pads magic, version, length and header to 64 bytes with a newline.
        let unpadded = NPY_MAGIC.len() + 4 + header.len() + 1;
        header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
        header.push('\n');
        chunk.extend_from_slice(NPY_MAGIC);
        chunk.extend_from_slice(&[1, 0]);
        chunk.extend_from_slice(&(header.len() as u16).to_le_bytes());
        chunk.extend_from_slice(header.as_bytes());
        for v in *values {
            chunk.extend_from_slice(&v.to_le_bytes());
        }
    }
    (chunk, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_through_a_chunk_and_its_index() {
        let arrays: [&[f64]; 3] = [&[1.5, -2.0, 1e300], &[], &[f64::MIN_POSITIVE]];
        let (chunk, index) = write_chunk(&arrays);
        let offsets = read_index(&index).unwrap();
        // NumPy's layout: magic, version and header padded to a multiple of
        // 64 bytes (128 here), then the data.
        assert_eq!(offsets, [16, 16 + 128 + 24, 16 + 128 + 24 + 128]);
        for (array, offset) in arrays.iter().zip(&offsets) {
            assert_eq!(read_array(&chunk, *offset).unwrap(), *array);
        }
    }

    /// Builds a `.npy` array by hand in any type and order.
    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut a = VALUES_MAGIC.to_vec();
        a.extend_from_slice(NPY_MAGIC);
        a.extend_from_slice(&[1, 0]);
        a.extend_from_slice(&(header.len() as u16).to_le_bytes());
        a.extend_from_slice(header.as_bytes());
        a.extend_from_slice(data);
        a
    }

    #[test]
    fn every_numeric_type_and_byte_order_is_read() {
        let cases: [(&str, Vec<u8>, f64); 6] = [
            ("<f4", 2.5f32.to_le_bytes().to_vec(), 2.5),
            (">f8", (-3.25f64).to_be_bytes().to_vec(), -3.25),
            ("<i2", (-7i16).to_le_bytes().to_vec(), -7.0),
            (">i4", (-70000i32).to_be_bytes().to_vec(), -70000.0),
            ("|u1", vec![200], 200.0),
            ("<u8", u64::MAX.to_le_bytes().to_vec(), u64::MAX as f64),
        ];
        for (descr, data, want) in cases {
            let chunk = npy(descr, "(1,)", &data);
            assert_eq!(read_array(&chunk, 16).unwrap(), [want], "{descr}");
        }
    }

    #[test]
    fn malformed_arrays_are_errors_with_the_offset() {
        let f8 = 1.0f64.to_le_bytes();
        for (chunk, wanted) in [
            (npy("<c16", "(1,)", &[0; 16]), "element type `<c16`"),
            (npy("<f8", "(2, 2)", &[0; 32]), "one dimension"),
            (npy("<f8", "(3,)", &f8), "3 values announced"),
            (npy("<f8", "(x,)", &f8), "not a length"),
            (npy("O", "(1,)", &f8), "element type `O`"),
            (VALUES_MAGIC.to_vec(), "outside the chunk"),
            (
                [VALUES_MAGIC.as_slice(), b"garbage!!!!"].concat(),
                "not a NumPy array",
            ),
        ] {
            let e = read_array(&chunk, 16).unwrap_err();
            assert!(e.contains(wanted), "{e}");
        }
        assert!(read_array(&npy("<f8", "(1,)", &f8), 1 << 40).is_err());
        let mut index = INDEX_MAGIC.to_vec();
        index.extend_from_slice(&5u64.to_le_bytes());
        assert!(
            read_index(&index)
                .unwrap_err()
                .contains("5 arrays announced")
        );
        assert!(read_index(b"Extra-P INDEX").is_err());
        assert!(read_index(INDEX_MAGIC).unwrap_err().contains("cut short"));
    }
}
