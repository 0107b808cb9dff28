//! The files the commands write, all through here (a training run's checkpoint folders have
//! their own, in `az::checkpoint`): a target is checked before the work that fills it
//! ([`check`], [`check_apart`], [`prepare_dir`]), then written beside itself under a hidden name
//! of its own and renamed over it ([`write`], [`write_with`]).
//!
//! - A reader never sees half a file, and a write that fails leaves the old file as it was.
//! - A directory, device, FIFO or socket named as the target is refused, never replaced: a
//!   rename over `/dev/null`, run as root, would replace the machine's `/dev/null`. So is a
//!   read-only file, and one that is also the command's input.
//! - The temporary is `.NAME.PID.RANDOM.tmp`, made with `create_new`, so no file of the user's
//!   is ever overwritten or removed but the target itself. It is removed on every error path (a
//!   drop guard), and by [`remove_temporaries`], which the command calls when a signal ends it.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a file cannot be written: the file, and the system's error or our own words.
#[derive(Debug)]
pub struct OutputError {
    /// The target (a file, or the directory for [`prepare_dir`]).
    pub path: PathBuf,
    /// What went wrong.
    pub source: io::Error,
}

impl OutputError {
    fn new(path: &Path, source: io::Error) -> OutputError {
        OutputError {
            path: path.to_path_buf(),
            source,
        }
    }

    fn refused(path: &Path, why: String) -> OutputError {
        OutputError::new(path, io::Error::new(io::ErrorKind::InvalidInput, why))
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl From<OutputError> for io::Error {
    fn from(e: OutputError) -> io::Error {
        io::Error::new(e.source.kind(), e.to_string())
    }
}

/// Check, before any work, that `path` can be written: its directory exists and takes new
/// files, and `path` is missing or a regular file (a directory, device, FIFO or socket is
/// refused). A file is made and removed in the directory to find out.
pub fn check(path: &Path) -> Result<(), OutputError> {
    existing(path)?;
    Temporary::create(path).map(drop)
}

/// [`check`], and refuse `path` when it is one of the command's `inputs` (each with the flag
/// that names it): writing it would replace what the command reads, such as the tablebase that
/// `sowing positions --tablebase T --out T` labels from.
pub fn check_apart(path: &Path, inputs: &[(&str, Option<&Path>)]) -> Result<(), OutputError> {
    check(path)?;
    let Ok(out) = fs::canonicalize(path) else {
        return Ok(());
    };
    for (flag, input) in inputs {
        if let Some(input) = input
            && fs::canonicalize(input).is_ok_and(|i| i == out)
        {
            return Err(OutputError::refused(
                path,
                format!(
                    "it is also the file of {flag} {}, which writing it would replace: give \
                     another file",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Make the output directory `dir` if it is missing and check that files can be made in it;
/// something there that is not a directory is refused.
pub fn prepare_dir(dir: &Path) -> Result<(), OutputError> {
    match fs::metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(OutputError::refused(
                dir,
                "it is not a directory: give a directory, or a path that does not exist yet".into(),
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(|e| OutputError::new(dir, e))?;
        }
        Err(e) => return Err(OutputError::new(dir, e)),
    }
    Temporary::create(&dir.join("check")).map(drop)
}

/// Write `bytes` to `path` (see the module's documentation).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_with(path, 8 << 10, |out| out.write_all(bytes))
}

/// Write to `path` whatever `fill` writes into a buffer of `capacity` bytes, through a
/// temporary that is flushed to the disk and renamed over `path` (see the module's
/// documentation). A file that is replaced keeps its permissions.
pub fn write_with(
    path: &Path,
    capacity: usize,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<(), OutputError> {
    let before = existing(path)?;
    let (temp, file) = Temporary::create(path)?;
    let failed = |e| OutputError::new(path, e);
    if let Some(permissions) = before {
        file.set_permissions(permissions).map_err(failed)?;
    }
    let mut out = BufWriter::with_capacity(capacity, file);
    fill(&mut out).map_err(failed)?;
    let file = out.into_inner().map_err(|e| failed(e.into_error()))?;
    file.sync_all().map_err(failed)?;
    drop(file);
    // What is there now, which may have changed while the file was written.
    existing(path)?;
    temp.rename_to(path).map_err(failed)
}

/// The permissions of the regular file at `path`, `None` when nothing is there; refused when
/// what is there is not a regular file (links are followed), or `path` names no file.
fn existing(path: &Path) -> Result<Option<fs::Permissions>, OutputError> {
    if path.file_name().is_none() {
        return Err(OutputError::refused(
            path,
            "it names no file (it ends in `.` or `..`, or is a root): give a file name".into(),
        ));
    }
    if path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        return Err(OutputError::refused(
            path,
            "it ends in a separator, which names a directory: give a file name".into(),
        ));
    }
    match fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().readonly() => Err(OutputError::refused(
            path,
            "it is read-only, which writing the file would replace: make it writable, or give \
             another file"
                .into(),
        )),
        Ok(m) if m.is_file() => Ok(Some(m.permissions())),
        Ok(m) if m.is_dir() => Err(OutputError::refused(
            path,
            "it is a directory: give a file name".into(),
        )),
        Ok(_) => Err(OutputError::refused(
            path,
            "it is not a regular file (a device, FIFO or socket), which writing the file would \
             replace: give the name of a regular file"
                .into(),
        )),
        // A missing directory, or a file where one should be, is named by the check of the
        // directory that follows.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(OutputError::new(path, e)),
    }
}

/// The directory a file at `path` goes into.
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The temporaries that exist now, for [`remove_temporaries`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // The list stays right whatever a panicking holder was doing: each change is one push or
    // one removal.
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Remove every temporary this process is writing now; for a signal handler's thread, just
/// before the process ends.
pub fn remove_temporaries() {
    for path in live().drain(..) {
        let _ = fs::remove_file(path);
    }
}

/// A temporary file beside its target, removed when dropped unless renamed.
struct Temporary {
    /// The file; `None` once renamed.
    path: Option<PathBuf>,
}

/// Longest part of the target's name kept in a temporary's name, so that the temporary's name
/// stays within the 255 bytes file systems allow.
const NAME_BYTES: usize = 180;

impl Temporary {
    /// A new, empty temporary for `target`, in its directory.
    fn create(target: &Path) -> Result<(Temporary, File), OutputError> {
        let dir = directory_of(target);
        match fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(OutputError::refused(
                    target,
                    format!("{} is not a directory", dir.display()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(OutputError::refused(
                    target,
                    format!(
                        "its directory {} does not exist: create it first, or give another path",
                        dir.display()
                    ),
                ));
            }
            Err(e) => return Err(OutputError::new(target, e)),
        }
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut cut = name.len().min(NAME_BYTES);
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        for _ in 0..64 {
            let random = RandomState::new().build_hasher().finish();
            let path = dir.join(format!(
                ".{}.{}.{random:016x}.tmp",
                &name[..cut],
                std::process::id()
            ));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    // Listed only once it is ours: a listed file is removed on a signal.
                    live().push(path.clone());
                    return Ok((Temporary { path: Some(path) }, file));
                }
                // Someone else's file: leave it, and draw another name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(OutputError::new(
                        target,
                        io::Error::new(
                            e.kind(),
                            format!("cannot make a file in {}: {e}", dir.display()),
                        ),
                    ));
                }
            }
        }
        Err(OutputError::refused(
            target,
            format!("every temporary name drawn in {} was taken", dir.display()),
        ))
    }

    /// Rename the temporary over `target`.
    fn rename_to(mut self, target: &Path) -> io::Result<()> {
        let path = self.path.take().expect("a temporary is renamed once");
        if let Err(e) = fs::rename(&path, target) {
            self.path = Some(path);
            return Err(e);
        }
        unlist(&path);
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = fs::remove_file(&path);
            unlist(&path);
        }
    }
}

fn unlist(path: &Path) {
    live().retain(|p| p != path);
}
