//! Integration tests of the `gatecheck` binary (one test binary; one module per subcommand).

mod adding_a_platform;
mod adding_a_route;
mod architecture;
mod architecture_doc;
mod check;
mod child;
mod deps;
mod diff;
mod docs_links;
mod durability;
mod fixtures;
mod foreign;
mod help;
mod honesty;
mod messages;
mod profiles;
mod readme;
mod ready;
mod record;
mod schemas;
mod sdk;
mod sdk_replay;
mod secrets;
mod serve;
mod snapshot;
mod support;
