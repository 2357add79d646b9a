// CourierURL: see docs/architecture.md.
