// Checks for the response-side parsers of `Courier`'s serializers: the XML event parser, the
// property-list reader (XML and bplist00) and the image sniffer. Any input ends in a value or a
// typed error, never a trap; depth and size stay bounded (their limits are the parsers' own); what
// parses as a property list writes back to XML that parses to the same value.
import Courier

extension FuzzChecks {
    public static func serialization(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let events = try? XMLParser().events(bytes)
        let tree = try? XMLElement.parse(bytes)
        require((events == nil) == (tree == nil), "the XML event parser and the tree builder disagree on well-formedness")

        if let value = try? PropertyListParser().parse(bytes), let xml = try? PropertyListXMLWriter.write(value) {
            // Compared as written XML, so a NaN real (never equal to itself) compares equal.
            let again = (try? PropertyListParser().parseXML(xml)).flatMap { try? PropertyListXMLWriter.write($0) }
            require(again == xml, "a property list does not survive write → parse")
        }

        if let info = try? ImageSniffer.sniff(bytes) {
            require(info.width >= 0 && info.height >= 0, "negative image size")
        }
    }
}
