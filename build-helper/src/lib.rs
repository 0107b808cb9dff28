//! # sowing-build
//!
//! What the build scripts of the crates that link libtorch (`sowing-agents`, and
//! `sowing-experiments` for the `sowing` binary) share: with their `torch` feature, make their
//! binaries (the command, tests, examples) find libtorch on their own, with no
//! `LD_LIBRARY_PATH`.

/// Call from a build script: with the `torch` feature, embed the library directory that
/// torch-sys found as an rpath, and keep libtorch_cuda in the link even though no symbol of it is
/// referenced (otherwise `--as-needed` drops it and `Device::cuda_if_available` never sees a
/// GPU). Without the feature this does nothing.
pub fn link_libtorch() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if std::env::var_os("CARGO_FEATURE_TORCH").is_none() {
        return;
    }
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    if std::path::Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch_cuda");
    }
}
