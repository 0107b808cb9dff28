//! With the `torch` feature, this crate's test and example binaries find libtorch on their own
//! (see `sowing_build::link_libtorch`).

fn main() {
    sowing_build::link_libtorch();
}
