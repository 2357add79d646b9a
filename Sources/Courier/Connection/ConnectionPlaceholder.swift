// placeholder until the connection API lands
enum ConnectionPlaceholder {}
