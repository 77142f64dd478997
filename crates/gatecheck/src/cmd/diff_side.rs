//! The two sides of `gatecheck diff`, declared once: `side_args!` makes the `--left-*` and
//! the `--right-*` structs from one list of flags, flattened into `DiffArgs`.

use gatecheck_conformance::sequence::SideSpec;
use gatecheck_conformance::TargetMode;
use gatecheck_schemas::NamedProfile;

/// Declares the arguments of one side; `$side` is the flag prefix, `$env` the environment
/// variable infix, `$seed` the default id seed of its embedded mock.
macro_rules! side_args {
    ($name:ident, $side:literal, $env:literal, $seed:literal) => {
        #[doc = concat!("The ", $side, " target of `gatecheck diff`: a URL or an embedded mock, and its credentials.")]
        #[derive(Debug, clap::Args)]
        #[command(next_help_heading = concat!("Target ", $side))]
        pub struct $name {
            #[doc = concat!("`--", $side, "`: base URL of the target.")]
            #[arg(
                id = concat!($side, "_url"),
                long = $side,
                value_name = "URL",
                value_parser = super::target_args::parse_base_url,
                conflicts_with = concat!($side, "_mock"),
                help = concat!("Base URL of the ", $side, " target")
            )]
            pub url: Option<String>,
            #[doc = concat!("`--", $side, "-mock`: use an embedded mock.")]
            #[arg(
                id = concat!($side, "_mock"),
                long = concat!($side, "-mock"),
                help = concat!("Use an embedded mock as the ", $side, " target")
            )]
            pub mock: bool,
            #[doc = concat!("`--", $side, "-profile`: profile of the embedded mock.")]
            #[arg(
                id = concat!($side, "_profile"),
                long = concat!($side, "-profile"),
                value_name = "P",
                default_value = "documented",
                help = concat!("Profile of the embedded ", $side, " mock")
            )]
            pub profile: NamedProfile,
            #[doc = concat!("`--", $side, "-mock-seed`: id seed of the embedded mock.")]
            #[arg(
                id = concat!($side, "_mock_seed"),
                long = concat!($side, "-mock-seed"),
                value_name = "N",
                default_value_t = $seed,
                help = concat!("Id seed of the embedded ", $side, " mock")
            )]
            pub mock_seed: u64,
            #[doc = concat!("`--", $side, "-mock-epoch`: start of the embedded mock's virtual clock.")]
            #[arg(
                id = concat!($side, "_mock_epoch"),
                long = concat!($side, "-mock-epoch"),
                value_name = "SECS",
                help = concat!("Start of the embedded ", $side, " mock's virtual clock, Unix seconds")
            )]
            pub mock_epoch: Option<i64>,
            #[doc = concat!("`--", $side, "-api-key`: API key for the model routes.")]
            #[arg(
                id = concat!($side, "_api_key"),
                long = concat!($side, "-api-key"),
                value_name = "KEY",
                env = concat!("GATECHECK_", $env, "_API_KEY"),
                hide_env_values = true,
                help = concat!("API key for the ", $side, " target's model routes")
            )]
            pub api_key: Option<String>,
            #[doc = concat!("`--", $side, "-access-token`: access token for `/api/token/`.")]
            #[arg(
                id = concat!($side, "_access_token"),
                long = concat!($side, "-access-token"),
                value_name = "T",
                env = concat!("GATECHECK_", $env, "_ACCESS_TOKEN"),
                hide_env_values = true,
                help = concat!("Access token for the ", $side, " target's /api/token/")
            )]
            pub access_token: Option<String>,
            #[doc = concat!("`--", $side, "-user-id`: account id of the access token.")]
            #[arg(
                id = concat!($side, "_user_id"),
                long = concat!($side, "-user-id"),
                value_name = "ID",
                help = concat!("Account id of the ", $side, " access token (sent as New-Api-User)")
            )]
            pub user_id: Option<i64>,
            #[doc = concat!("`--", $side, "-key-id`: id of the API key the key steps edit.")]
            #[arg(
                id = concat!($side, "_key_id"),
                long = concat!($side, "-key-id"),
                value_name = "ID",
                help = concat!("Id of the ", $side, " API key (the key-management steps edit it, then restore it)")
            )]
            pub key_id: Option<i64>,
            #[doc = concat!("`--", $side, "-target`: what the ", $side, " URL is, instead of `--target`.")]
            #[arg(
                id = concat!($side, "_target"),
                long = concat!($side, "-target"),
                value_name = "KIND",
                help = concat!("What the ", $side, " URL is (auto, mock, deployment); default: --target")
            )]
            pub target: Option<TargetMode>,
        }

        impl $name {
            /// What `OpenSide::open` needs to reach this side; `target` applies unless
            /// `--<side>-target` overrides it.
            pub fn spec(&self, target: TargetMode) -> SideSpec {
                SideSpec {
                    target: self.target.unwrap_or(target),
                    url: self.url.clone(),
                    mock: self.mock.then_some(self.profile),
                    api_key: self.api_key.clone(),
                    access_token: self.access_token.clone(),
                    user_id: self.user_id,
                    key_id: self.key_id,
                    mock_seed: self.mock_seed,
                    mock_epoch: self.mock_epoch,
                    headers: Vec::new(),
                }
            }

            /// The flags that name this side again, for a repro line: secrets as the
            /// environment variables the flags read (`"$GATECHECK_LEFT_API_KEY"`).
            pub fn flags(&self) -> String {
                let mut f = Vec::new();
                if let Some(url) = &self.url {
                    f.push(format!("--{} '{}'", $side, url.replace('\'', "'\\''")));
                } else if self.mock {
                    f.push(format!("--{}-mock --{}-profile {} --{}-mock-seed {}",
                        $side, $side, self.profile, $side, self.mock_seed));
                    if let Some(e) = self.mock_epoch {
                        f.push(format!("--{}-mock-epoch {e}", $side));
                    }
                }
                if self.api_key.is_some() {
                    f.push(format!("--{}-api-key \"$GATECHECK_{}_API_KEY\"", $side, $env));
                }
                if self.access_token.is_some() {
                    f.push(format!("--{}-access-token \"$GATECHECK_{}_ACCESS_TOKEN\"", $side, $env));
                }
                if let Some(u) = self.user_id {
                    f.push(format!("--{}-user-id {u}", $side));
                }
                if let Some(k) = self.key_id {
                    f.push(format!("--{}-key-id {k}", $side));
                }
                if let Some(t) = self.target {
                    f.push(format!("--{}-target {}", $side, super::diff_side::mode_name(t)));
                }
                f.join(" ")
            }
        }
    };
}

/// The flag value of a target mode.
pub(crate) fn mode_name(t: TargetMode) -> &'static str {
    match t {
        TargetMode::Auto => "auto",
        TargetMode::Mock => "mock",
        TargetMode::Deployment => "deployment",
    }
}

side_args!(LeftSide, "left", "LEFT", 1);
side_args!(RightSide, "right", "RIGHT", 2);
