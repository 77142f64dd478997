//! Property-generated contract checks against any deployment of the service.
