//! With the `torch` feature, the `sowing` binary and this crate's tests find libtorch on their
//! own (see `sowing_build::link_libtorch`).

fn main() {
    sowing_build::link_libtorch();
}
