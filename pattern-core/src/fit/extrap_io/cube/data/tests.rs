use super::*;
use crate::fit::extrap_io::cube::testutil::{f64s, index, index_with, plain, zdata, zlib};

/// The values' bytes in the byte order asked for.
macro_rules! in_order {
    ($values:expr, $big:expr) => {
        $values
            .iter()
            .flat_map(|v| {
                if $big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            })
            .collect()
    };
}

fn dtype(name: &str) -> Dtype {
    Dtype::parse(name).unwrap()
}

#[test]
fn index_reads_in_both_byte_orders() {
    for big in [false, true] {
        let i = parse_index(&index(&[0, 3, 1], big)).unwrap();
        let endian = if big { Endian::Big } else { Endian::Little };
        assert_eq!(
            i,
            Index {
                endian,
                positions: vec![0, 3, 1]
            }
        );
    }
    assert_eq!(
        parse_index(&index(&[], false)).unwrap().positions,
        Vec::<u32>::new()
    );
}

#[test]
fn index_errors_name_the_byte() {
    let e = parse_index(b"CUBEX.INDEY\x01\0\0\0").unwrap_err();
    assert!(
        e.starts_with("byte 0:") && e.contains("not CUBEX.INDEX"),
        "{e}"
    );
    let mut b = index(&[0], false);
    b[11] = 2;
    let e = parse_index(&b).unwrap_err();
    assert!(
        e.starts_with("byte 11:") && e.contains("byte-order mark"),
        "{e}"
    );
    let e = parse_index(&index_with(&[0], false, 3)).unwrap_err();
    assert!(
        e.starts_with("byte 17:") && e.contains("index format 3"),
        "{e}"
    );
    let mut b = index(&[], false);
    b[18..22].copy_from_slice(&(-1i32).to_le_bytes());
    let e = parse_index(&b).unwrap_err();
    assert!(
        e.starts_with("byte 18:") && e.contains("negative count"),
        "{e}"
    );
    let mut b = index(&[0, 1], false);
    b.pop();
    let e = parse_index(&b).unwrap_err();
    assert!(
        e.contains("2 positions need 8 bytes") && e.contains("has 7"),
        "{e}"
    );
    let e = parse_index(&index(&[0, -4], true)).unwrap_err();
    assert!(
        e.starts_with("byte 26:") && e.contains("negative position -4"),
        "{e}"
    );
    // A count whose byte size overflows is refused before any allocation.
    let mut b = index(&[], false);
    b[18..22].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(parse_index(&b).unwrap_err().contains("positions need"));
    let e = parse_index(b"CUBEX.INDEX\x01\0").unwrap_err();
    assert!(e.contains("ends at byte 13"), "{e}");
}

#[test]
fn plain_data_of_every_integer_and_float_type() {
    for big in [false, true] {
        let e = if big { Endian::Big } else { Endian::Little };
        let d = f64s(&[1.5, -2.0, 3.25, 4.0], big);
        assert_eq!(
            parse_data(&plain(&d), e, 2, 2, dtype("DOUBLE")).unwrap(),
            [1.5, -2.0, 3.25, 4.0]
        );
        assert_eq!(
            parse_data(&plain(&d), e, 4, 1, dtype("FLOAT")).unwrap(),
            [1.5, -2.0, 3.25, 4.0]
        );
        let u64s: Vec<u8> = in_order!(
            [7u64, 0xFFFF_FFFF_FFFF_FBFF, 0xFFFF_FFFF_FFFF_FC00, u64::MAX],
            big
        );
        // Past CubeLib's largest round-trip value, UINT64 reads as 0.
        for name in ["UINT64", "UNSIGNED INTEGER"] {
            let got = parse_data(&plain(&u64s), e, 1, 4, dtype(name)).unwrap();
            assert_eq!(got, [7.0, 0xFFFF_FFFF_FFFF_FBFFu64 as f64, 0.0, 0.0]);
        }
        let i64s: Vec<u8> = in_order!([-5i64, 1 << 40], big);
        assert_eq!(
            parse_data(&plain(&i64s), e, 2, 1, dtype("INT64")).unwrap(),
            [-5.0, 2f64.powi(40)]
        );
        let i32s: Vec<u8> = in_order!([-3i32, 9], big);
        assert_eq!(
            parse_data(&plain(&i32s), e, 2, 1, dtype("INT")).unwrap(),
            [-3.0, 9.0]
        );
        assert_eq!(
            parse_data(&plain(&i32s), e, 2, 1, dtype("UINT32")).unwrap(),
            [4294967293.0, 9.0]
        );
        let i16s: Vec<u8> = in_order!([-3i16, 300], big);
        assert_eq!(
            parse_data(&plain(&i16s), e, 1, 2, dtype("SHORT INT")).unwrap(),
            [-3.0, 300.0]
        );
        assert_eq!(
            parse_data(&plain(&i16s), e, 1, 2, dtype("UINT16")).unwrap(),
            [65533.0, 300.0]
        );
        assert_eq!(
            parse_data(&plain(&[0xFF, 7]), e, 2, 1, dtype("INT8")).unwrap(),
            [-1.0, 7.0]
        );
        assert_eq!(
            parse_data(&plain(&[0xFF, 7]), e, 2, 1, dtype("CHAR")).unwrap(),
            [255.0, 7.0]
        );
    }
}

#[test]
fn data_size_must_be_rows_times_locations_times_size() {
    let d = plain(&f64s(&[1.0, 2.0, 3.0], false));
    let e = parse_data(&d, Endian::Little, 2, 2, dtype("DOUBLE")).unwrap_err();
    assert!(
        e.starts_with("byte 10: 24 bytes") && e.contains("2 rows × 2 locations × 8 bytes = 32"),
        "{e}"
    );
    let e = parse_data(b"CUBEX.DAT", Endian::Little, 0, 1, dtype("DOUBLE")).unwrap_err();
    assert!(e.contains("not CUBEX.DATA or ZCUBEX.DATA"), "{e}");
    let e = parse_data(&d, Endian::Little, usize::MAX, 3, dtype("DOUBLE")).unwrap_err();
    assert!(e.contains("overflow"), "{e}");
    assert_eq!(
        parse_data(&plain(&[]), Endian::Little, 0, 5, dtype("DOUBLE")).unwrap(),
        Vec::<f64>::new()
    );
}

#[test]
fn compressed_data_in_segments_both_byte_orders() {
    for big in [false, true] {
        let e = if big { Endian::Big } else { Endian::Little };
        let rows = [
            f64s(&[1.0, 2.0], big),
            f64s(&[3.0, 4.0], big),
            f64s(&[5.0, 6.0], big),
        ];
        let segments: Vec<Vec<u8>> = rows.iter().map(|r| zlib(r)).collect();
        let got = parse_data(&zdata(&segments, big), e, 3, 2, dtype("DOUBLE")).unwrap();
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // Empty segments are skipped; one segment may hold several rows.
        let all = [rows[0].clone(), rows[1].clone()].concat();
        let got = parse_data(
            &zdata(&[zlib(&all), Vec::new()], big),
            e,
            2,
            2,
            dtype("DOUBLE"),
        )
        .unwrap();
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0]);
    }
}

#[test]
fn compressed_data_errors() {
    let row = f64s(&[1.0, 2.0], false);
    let d = |segments: &[Vec<u8>]| zdata(segments, false);
    let parse = |bytes: &[u8], rows| parse_data(bytes, Endian::Little, rows, 2, dtype("DOUBLE"));
    // A bomb: a segment that inflates past what the index and locations
    // say is stopped there.
    let bomb = zlib(&vec![0u8; 64 << 20]);
    assert!(bomb.len() < 100_000);
    let e = parse(&d(&[bomb]), 1).unwrap_err();
    assert!(
        e.contains("segment 0") && e.contains("inflates past the 16 bytes"),
        "{e}"
    );
    let e = parse(&d(std::slice::from_ref(&zlib(&row))), 2).unwrap_err();
    assert!(
        e.contains("inflate to 16 bytes") && e.contains("say 32"),
        "{e}"
    );
    let mut cut = zlib(&row);
    cut.truncate(cut.len() - 5);
    let e = parse(&d(&[cut]), 1).unwrap_err();
    assert!(
        e.contains("segment 0") && (e.contains("truncated") || e.contains("corrupt")),
        "{e}"
    );
    let mut trailing = zlib(&row);
    trailing.extend([1, 2, 3]);
    let e = parse(&d(&[trailing]), 1).unwrap_err();
    assert!(
        e.contains("3 bytes after the end of its zlib stream"),
        "{e}"
    );
    let e = parse(&d(&[vec![0x78, 0x9c, 0xff, 0xff, 0xff]]), 1).unwrap_err();
    assert!(e.contains("segment 0 at byte 43"), "{e}");
    // Counts and sizes that do not fit the member.
    let mut b = d(&[zlib(&row)]);
    b[11..19].copy_from_slice(&(-1i64).to_le_bytes());
    assert!(
        parse(&b, 1)
            .unwrap_err()
            .contains("negative count of segments -1")
    );
    b[11..19].copy_from_slice(&(1i64 << 60).to_le_bytes());
    assert!(parse(&b, 1).unwrap_err().contains("do not fit"));
    let mut b = d(&[zlib(&row)]);
    b[35..43].copy_from_slice(&1000i64.to_le_bytes());
    let e = parse(&b, 1).unwrap_err();
    assert!(e.contains("inside the segment 0"), "{e}");
    let mut b = d(&[zlib(&row)]);
    b.push(0);
    assert!(
        parse(&b, 1)
            .unwrap_err()
            .contains("1 bytes after the last segment")
    );
}

#[test]
fn unreadable_dtypes_say_why() {
    for (name, why) in [
        ("TAU_ATOMIC", "five numbers"),
        ("NDOUBLES(3)", "several numbers"),
        ("COMPLEX", "real and imaginary"),
        ("RATE", "main and time"),
        ("HISTOGRAM(10)", "several numbers"),
        ("SCALE_FUNC", "unknown dtype"),
        ("", "no <dtype>"),
    ] {
        let e = Dtype::parse(name).unwrap_err();
        assert!(e.contains(why), "{name}: {e}");
    }
    assert_eq!(dtype(" DOUBLE\n").size(), 8);
    assert_eq!(dtype("MINDOUBLE").combine, Combine::Min);
    assert_eq!(dtype("UINT8").combine, Combine::Sum { unsigned: true });
    assert_eq!(dtype("INT16").combine, Combine::Sum { unsigned: false });
}
