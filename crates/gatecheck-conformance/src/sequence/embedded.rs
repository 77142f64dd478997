//! The embedded target: a gatecheck mock started in this process as one side of a sequence
//! (`gatecheck diff --left-mock`, `gatecheck snapshot`). It is the runner's only use of
//! `gatecheck-mock`, behind the feature `embedded` (the `gatecheck` CLI enables it); without
//! it, [`MockServer`] is a type with no values and asking for the embedded mock is an error
//! that says how to build it.

#[cfg(feature = "embedded")]
pub use gatecheck_mock::MockServer;

/// The refusal of a side that asks for the embedded mock in a build without it.
#[cfg(not(feature = "embedded"))]
pub const NOT_BUILT: &str = "this build has no embedded mock: build gatecheck-conformance with \
                             the feature `embedded`, or give the mock's URL";

/// The embedded mock of a build without the feature `embedded`: it has no values.
#[cfg(not(feature = "embedded"))]
#[derive(Debug)]
pub enum MockServer {}

#[cfg(not(feature = "embedded"))]
impl MockServer {
    /// Never called: there is no server to stop.
    pub async fn shutdown(self) {
        match self {}
    }
}
