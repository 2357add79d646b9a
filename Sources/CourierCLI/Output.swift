import CourierPosix

/// Writes one line to standard error.
func printError(_ line: String) {
    StandardStreams.writeError(line + "\n")
}

/// `value` with `digits` decimals, without Foundation's formatters.
func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (value * scale).rounded()
    let whole = Int64(scaled / scale)
    let fraction = Int64(abs(scaled - Double(whole) * scale))
    guard digits > 0 else { return String(whole) }
    var fractionText = String(fraction)
    while fractionText.count < digits { fractionText = "0" + fractionText }
    return (scaled < 0 && whole == 0 ? "-" : "") + String(whole) + "." + fractionText
}

/// Pads `text` on the left (numbers) or right (labels) to `width` characters.
func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? text + padding : padding + text
}
