//! The plugins' native routes in the route table: [`table`] is [`ROUTES`] and, after it, one
//! row per route a registered platform's plugin declares (`PluginFacts::native`,
//! `rules::platforms::native`), built once per process from the registry. Such a row's
//! [`Op::Native`] names the platform and the route's place in its declaration.

use super::{Op, Route, ROUTES};
use crate::rules::platforms::native::NativeRoute;
use crate::rules::platforms::{Key, Platform};

/// The operation of a declared native route: the platform's key and the route's index in its
/// `PluginFacts::native` routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeOp {
    /// The platform that declares the route.
    pub platform: Key,
    /// The route's index in the platform's declaration.
    pub index: usize,
}

impl NativeOp {
    /// The platform and the declared route (`None`: a key not registered, an index past its
    /// routes).
    pub fn route(self) -> Option<(&'static Platform, &'static NativeRoute)> {
        let p = self.platform.platform()?;
        Some((p, p.plugins.native.routes.get(self.index)?))
    }
}

/// The whole route table: [`ROUTES`], then every declared native route in registry order.
/// The registry is read once, here, so a platform added at run time (`platforms::extend`)
/// must be added before the first lookup.
///
/// ```
/// use gatecheck_schemas::routes::{table, Op, ROUTES};
/// assert!(table().len() > ROUTES.len());
/// let doubao = table().iter().find(|r| r.path == "/doubao/api/v3/contents/generations/tasks");
/// assert!(matches!(doubao.map(|r| r.op), Some(Op::Native(_))));
/// ```
pub fn table() -> &'static [Route] {
    static TABLE: std::sync::LazyLock<Vec<Route>> = std::sync::LazyLock::new(|| {
        let native = crate::rules::platforms::native::declared().map(|(p, index, r)| Route {
            op: Op::Native(NativeOp {
                platform: p.key,
                index,
            }),
            method: r.method,
            path: r.path,
            operation_id: r.operation_id,
        });
        ROUTES.iter().copied().chain(native).collect()
    });
    &TABLE
}
