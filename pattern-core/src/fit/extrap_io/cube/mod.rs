//! CUBE 4 experiments, read as Extra-P's `--cube` reads them
//! (`Experiment::read_cube`). Here: the directory of runs, their order and
//! points, the options and what is reported. The parameters in the runs'
//! names are `names`; a profile is `profile`, from its `archive` (the tar),
//! `anchor` (the XML), `data` (the binary members) and `tree` (the call
//! tree's enumerations and conversions); the series are built in `series`.

mod anchor;
mod archive;
mod data;
mod names;
mod profile;
mod series;
mod tree;

#[cfg(test)]
mod testutil;

use super::{Experiment, ExtrapError};
use profile::{Metric, Selection};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How the runs of a CUBE experiment become series (Extra-P's options).
#[derive(Clone, Debug, Default)]
pub struct CubeOptions {
    /// The metrics read, by CUBE unique name (`time`, `visits`,
    /// `PAPI_TOT_CYC`); empty: every root of the metric tree, as Extra-P.
    /// A metric named here may be a sub-metric; one that no run has, or
    /// that cannot be read, is an error.
    pub metrics: Vec<String>,
    /// How the locations of a run are aggregated.
    pub scaling: Scaling,
    /// Inclusive values (a call path with its callees) instead of
    /// exclusive ones (Extra-P's default).
    pub inclusive: bool,
}

/// How a run's values at its locations (MPI processes, threads) become the
/// point's values: Extra-P's three scaling types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scaling {
    /// Weak scaling (the problem grows with the resources): every
    /// location's value is a value at the point, so the mean and median
    /// are per location.
    #[default]
    Weak,
    /// Weak scaling of threaded code: as [`Scaling::Weak`], but a run's
    /// locations of value 0 (threads that never ran the call path) are
    /// left out, unless all are 0.
    WeakThreaded,
    /// Strong scaling (the problem stays, the resources grow): a run's
    /// values summed over its locations (the work of all) is one value at
    /// the point.
    Strong,
}

/// What was read, and what was left out and why.
#[derive(Clone, Debug, PartialEq)]
pub struct CubeRead {
    /// The series: one per call path (`main->solve->MPI_Wait`) and metric
    /// measured at every point, by metric (in the anchors' order), call
    /// paths in call-tree order, points in increasing order.
    pub experiment: Experiment,
    /// What was left out, and why: metrics with no data or that cannot be
    /// read as one number per location, sub-metrics, call paths measured
    /// at only some points (merged into a caller, or left out).
    pub skipped: Vec<String>,
}

/// One `.cubex`, and the name of its run's directory.
struct Run {
    file: PathBuf,
    dir: String,
}

impl Experiment {
    /// Reads a CUBE experiment as Extra-P's `--cube` does: `dir` holds one
    /// directory per run, whose name carries the parameters
    /// (`mm.x10y1z25.r1`), each with one or more `*.cubex` profiles
    /// (Score-P's `profile.cubex`; names starting with `.` are ignored).
    /// Each call path (`main->solve->MPI_Wait`, region names joined by
    /// `->`) and metric (its CUBE unique name) becomes a series.
    ///
    /// As Extra-P 4.2.5:
    /// - Parameters: the text between the first `.` and the first `.r` of
    ///   a directory's name alternates names and values (`x1.1y1.1z1.1`,
    ///   `x20,5.y20,5.z1,5`: `,` is a decimal point, a value's trailing `.`
    ///   a separator); every run names the same parameters in the same
    ///   order; those of one value in all runs are dropped.
    /// - Repetitions: runs of the same parameters (`.r1`, `.r2`), and
    ///   several `.cubex` in one directory, are more values at the point.
    /// - Only the roots of the metric tree are read, unless named in
    ///   [`CubeOptions::metrics`]; exclusive values by default (metrics CUBE
    ///   stores inclusive are converted), inclusive on request.
    /// - A run's locations (processes, threads) are aggregated as the
    ///   [`Scaling`] says.
    /// - A call path measured at only some points is merged into its
    ///   nearest caller measured at all (exclusive values: its values are
    ///   added to the caller's) or left out (inclusive values); both are
    ///   listed in [`CubeRead::skipped`]. (Extra-P 4.2.5 means to merge
    ///   too, but its search for the caller starts at the call path
    ///   itself, which is still there: it drops them, and its callers'
    ///   exclusive values lack theirs.)
    /// - `UINT64` values past `0xFFFF_FFFF_FFFF_FBFF` read as 0 (CubeLib's
    ///   behaviour); an exclusive value of an unsigned metric is clamped at
    ///   0, child by child (pycubexr's); the strong-scaling total of a
    ///   `MINDOUBLE` or `MAXDOUBLE` metric is the minimum or maximum over
    ///   the locations.
    ///
    /// Unlike Extra-P, on purpose:
    /// - What cannot be read is reported where Extra-P crashes or silently
    ///   drops it: a metric with no data, a derived one, one of several
    ///   numbers per location (`TAU_ATOMIC`, `RATE`, `NDOUBLES`, `COMPLEX`)
    ///   is listed in `skipped` (an error if named in the options); a
    ///   malformed file is an error naming the file, the member and the
    ///   position (line and column in the anchor, byte in binary data).
    ///   Several root cnodes or system trees are read.
    /// - Two cnodes of one call path in a run (a region called twice from
    ///   one caller) are added (min/max for `MINDOUBLE`/`MAXDOUBLE`):
    ///   Extra-P counts them as two repetitions.
    /// - A merged call path is added to its caller location by location
    ///   and run by run, then aggregated: the means are those Extra-P's
    ///   merge means to give (it adds means, medians, minima and maxima);
    ///   medians, and the weak-threaded values (zeros left out after the
    ///   addition), can differ.
    /// - Values are `f64` from the start (integers exact up to 2^53).
    ///
    /// Limits: an anchor of at most 1 GiB (inflated); series names of at
    /// most 64 MiB in all (a call tree `d` deep has names of `O(d²)`
    /// bytes); CubeLib's sparse index format only (pycubexr reads any as
    /// sparse); a `.cubex` plain or gzipped (inflated to at most 4 GiB),
    /// not bzip2 or xz. Header checksums that CubeWriter 4.8 wrote 32 too
    /// small are put right, as pycubexr does.
    ///
    /// ```
    /// use pattern_core::fit::Fitter;
    /// use pattern_core::fit::extrap_io::{CubeOptions, Experiment};
    /// # // A profile of `main` calling `solve`, two locations, exclusive
    /// # // `time` (main 0.5, solve `t`), as Score-P writes it.
    /// # fn profile(t: f64) -> Vec<u8> {
    /// #     let anchor = r#"<?xml version="1.0" encoding="UTF-8"?><cube version="4.4">
    /// #       <metrics><metric id="0" type="EXCLUSIVE"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype></metric></metrics>
    /// #       <program><region id="0" mod="" begin="0" end="0"><name>main</name></region>
    /// #         <region id="1" mod="" begin="0" end="0"><name>solve</name></region>
    /// #         <cnode id="0" calleeId="0"><cnode id="1" calleeId="1"/></cnode></program>
    /// #       <system><systemtreenode Id="0"><locationgroup Id="0"><location Id="0"/><location Id="1"/></locationgroup></systemtreenode></system>
    /// #     </cube>"#;
    /// #     let mut index = b"CUBEX.INDEX".to_vec();
    /// #     index.extend(1i32.to_le_bytes()); // the byte order
    /// #     index.extend([0, 0, 1]); // version 0, the sparse format
    /// #     for n in [2i32, 0, 1] {
    /// #         index.extend(n.to_le_bytes()); // two positions: 0 and 1
    /// #     }
    /// #     let mut data = b"CUBEX.DATA".to_vec();
    /// #     for v in [0.5, 0.5, t, t] {
    /// #         data.extend(v.to_le_bytes());
    /// #     }
    /// #     let mut tar = tar::Builder::new(Vec::new());
    /// #     for (name, bytes) in [("0.index", index), ("0.data", data), ("anchor.xml", anchor.into())] {
    /// #         let mut header = tar::Header::new_gnu();
    /// #         header.set_size(bytes.len() as u64);
    /// #         header.set_cksum();
    /// #         tar.append_data(&mut header, name, &bytes[..]).unwrap();
    /// #     }
    /// #     tar.into_inner().unwrap()
    /// # }
    ///
    /// // One run per process count: runs/solver.p2.r1/profile.cubex, ...
    /// let runs = std::env::temp_dir().join(format!("read-cube-{}", std::process::id()));
    /// for p in [2.0, 4.0, 8.0, 16.0, 32.0] {
    ///     let run = runs.join(format!("solver.p{p}.r1"));
    ///     std::fs::create_dir_all(&run)?;
    ///     std::fs::write(run.join("profile.cubex"), profile(3.0 * p))?;
    /// }
    /// let read = Experiment::read_cube(&runs, &CubeOptions::default())?;
    /// assert!(read.skipped.is_empty());
    /// let ex = &read.experiment;
    /// assert_eq!(ex.parameters, ["p"]);
    /// let solve = ex.series("main->solve", "time").unwrap();
    /// // Weak scaling: one value per location.
    /// assert_eq!(solve.points[1].coordinate, [4.0]);
    /// assert_eq!(solve.points[1].values, [12.0, 12.0]);
    /// let fit = solve.fit(&Fitter::default(), &ex.parameters)?;
    /// assert_eq!(fit.model().growth("p").unwrap().to_string(), "O(p)");
    /// # std::fs::remove_dir_all(&runs)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_cube(
        dir: impl AsRef<Path>,
        options: &CubeOptions,
    ) -> Result<CubeRead, ExtrapError> {
        let dir = dir.as_ref();
        let runs = find_runs(dir)?;
        if u32::try_from(runs.len()).is_err() {
            return Err(ExtrapError::Invalid(format!(
                "{} profiles: more than 2^32",
                runs.len()
            )));
        }
        let dirs: Vec<&str> = runs.iter().map(|r| r.dir.as_str()).collect();
        let (parameters, coordinates) = names::parameters(&dirs)?;
        let mut order: Vec<usize> = (0..runs.len()).collect();
        // Stable: within a point, the runs in name order.
        order.sort_by(|&a, &b| {
            let (a, b) = (&coordinates[a], &coordinates[b]);
            a.iter()
                .zip(b)
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let selection = if options.metrics.is_empty() {
            Selection::Roots
        } else {
            Selection::Named(options.metrics.iter().cloned().collect())
        };
        let mut builder = series::Builder::new(options.scaling, options.inclusive);
        let mut report = Report::default();
        let mut point = None;
        for (file, &i) in order.iter().enumerate() {
            let starts_point =
                point.is_none_or(|(_, at): (u32, usize)| coordinates[at] != coordinates[i]);
            if starts_point {
                point = Some((builder.add_point(coordinates[i].clone()), i));
            }
            let q = point.map_or(0, |(q, _)| q);
            let run = &runs[i];
            let profile = profile::read(&run.file, &selection, options.inclusive)?;
            add_profile(&mut builder, &mut report, profile, (q, file as u32), run)?;
        }
        if let Selection::Named(names) = &selection {
            let mut missing: Vec<&String> = names
                .iter()
                .filter(|n| !report.names.contains(*n))
                .collect();
            missing.sort();
            if !missing.is_empty() {
                return Err(ExtrapError::Invalid(format!(
                    "no run has the metrics {missing:?}"
                )));
            }
        }
        let (series, paths_skipped) = builder.finish()?;
        let mut skipped = report.messages(runs.len());
        if series.is_empty() {
            // (Extra-P refuses such an experiment too.)
            let notes = paths_skipped.iter().chain(&skipped);
            let shown: Vec<&str> = notes.take(3).map(String::as_str).collect();
            return Err(ExtrapError::Invalid(format!(
                "no call path and metric is measured at every point; left out: {}",
                shown.join("; ")
            )));
        }
        skipped.extend(paths_skipped);
        Ok(CubeRead {
            experiment: Experiment { parameters, series },
            skipped,
        })
    }
}

/// Adds one profile's metrics at point `q` as run `file`, and notes what
/// it leaves out.
fn add_profile(
    builder: &mut series::Builder,
    report: &mut Report,
    profile: profile::Profile,
    (q, file): (u32, u32),
    run: &Run,
) -> Result<(), ExtrapError> {
    let cnode_paths = builder.paths_of(&profile.anchor)?;
    for (def, metric) in profile.anchor.metrics.iter().zip(profile.metrics) {
        report.seen(&def.name);
        let why = match metric {
            Metric::Values {
                cnodes,
                values,
                locations,
                combine,
            } => {
                let name = &def.name;
                builder.add_run(
                    q,
                    file,
                    name,
                    &cnodes,
                    &values,
                    locations,
                    combine,
                    &cnode_paths,
                );
                continue;
            }
            Metric::NotSelected => continue,
            Metric::Missing => format!("no data members ({0}.index, {0}.data)", def.id),
            Metric::Unreadable(why) => why,
            Metric::Under(parent) => format!(
                "a sub-metric of `{parent}`: Extra-P reads only the roots of the metric tree (name it in the options to read it)"
            ),
        };
        report.skip(&def.name, why, run);
    }
    Ok(())
}

/// The runs' `.cubex` files, as Extra-P's glob `*/[!.]*.cubex`, in name
/// order.
fn find_runs(dir: &Path) -> Result<Vec<Run>, ExtrapError> {
    if !dir.is_dir() {
        return Err(ExtrapError::Invalid(format!(
            "{} is not a directory (a CUBE experiment is a directory of runs)",
            dir.display()
        )));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExtrapError::Io { path, source }
    };
    let mut runs = Vec::new();
    for sub in std::fs::read_dir(dir).map_err(io(dir))? {
        let sub = sub.map_err(io(dir))?.path();
        if !sub.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&sub).map_err(io(&sub))? {
            let file = file.map_err(io(&sub))?.path();
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with('.') || !name.ends_with(".cubex") || !file.is_file() {
                continue;
            }
            let dir_name = sub.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
                ExtrapError::Invalid(format!(
                    "the run directory {} has a name that is not UTF-8",
                    sub.display()
                ))
            })?;
            runs.push(Run {
                dir: dir_name.to_string(),
                file,
            });
        }
    }
    if runs.is_empty() {
        return Err(ExtrapError::Invalid(format!(
            "no `*/*.cubex` in {} (a CUBE experiment is a directory of runs, each a directory of .cubex files)",
            dir.display()
        )));
    }
    runs.sort_by(|a, b| (&a.dir, &a.file).cmp(&(&b.dir, &b.file)));
    Ok(runs)
}

/// The metrics seen, and those left out, counted over the runs.
#[derive(Default)]
struct Report {
    names: HashSet<String>,
    /// `(metric, why)` → (runs, first run), in order of first appearance.
    skips: Vec<((String, String), usize, String)>,
    skip_at: HashMap<(String, String), usize>,
}

impl Report {
    fn seen(&mut self, name: &str) {
        if !self.names.contains(name) {
            self.names.insert(name.to_string());
        }
    }

    fn skip(&mut self, metric: &str, why: String, run: &Run) {
        let key = (metric.to_string(), why);
        match self.skip_at.get(&key) {
            Some(&i) => self.skips[i].1 += 1,
            None => {
                let file = run
                    .file
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned());
                let first = format!("{}/{}", run.dir, file.unwrap_or_default());
                self.skip_at.insert(key.clone(), self.skips.len());
                self.skips.push((key, 1, first));
            }
        }
    }

    fn messages(&self, files: usize) -> Vec<String> {
        let messages = self.skips.iter().map(|((metric, why), n, first)| {
            format!("metric `{metric}`: {why} (in {n} of {files} profiles, the first {first})")
        });
        messages.collect()
    }
}

#[cfg(test)]
mod tests;
