// JSONRequestSerializer: AFJSONRequestSerializer. GET, HEAD and DELETE put the parameters in the
// URI exactly as the form serializer does (JSON values become query values: numbers that are
// integers as integers, others as doubles, objects as dictionaries); other methods send the JSON
// text with Content-Type application/json (only when the caller set none). Nil parameters: no
// body and no Content-Type.

import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierURL

/// AFJSONRequestSerializer: parameters as a JSON body.
public struct JSONRequestSerializer: RequestSerializer {
    /// The JSON value to send.
    public typealias Parameters = JSONValue

    /// The defaults applied to every request.
    public var defaults: RequestDefaults
    /// Writer options (AFNetworking's `writingOptions`): compact by default.
    public var writingOptions: JSONWriter.Options

    /// Creates a serializer.
    /// - Parameters:
    ///   - defaults: the defaults.
    ///   - writingOptions: JSON writer options (default compact).
    public init(defaults: RequestDefaults = RequestDefaults(), writingOptions: JSONWriter.Options = []) {
        self.defaults = defaults
        self.writingOptions = writingOptions
    }

    /// Builds a request with a JSON body (or a query for URI methods).
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - parameters: the JSON value, or nil for no body.
    ///   - headers: per-request fields.
    /// - Returns: the request.
    /// - Throws: `RequestSerializationError`.
    public func request(method: HTTPMethod, uri: URI, parameters: JSONValue?, headers: HTTPHeaders) throws(RequestSerializationError) -> HTTPRequest {
        var (request, needsBody) = try defaults.baseRequest(method: method, uri: uri, query: parameters.map(QueryValue.init(json:)), headers: headers)
        guard needsBody, let parameters else { return request }
        var body = ByteBuffer()
        JSONWriter.write(parameters, options: writingOptions, into: &body)
        if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
        request.body = .bytes(body)
        return request
    }

    /// Builds a request from an `Encodable` value, encoded with `CourierJSONEncoder` before
    /// anything else is done.
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - value: the value.
    ///   - encoder: the encoder (its output formatting is used as given).
    ///   - headers: per-request fields.
    /// - Returns: the request.
    /// - Throws: `.invalidJSONValue` (non-finite doubles, a value that encodes nothing, an
    ///   `encode(to:)` that throws) with the encoder's error underlying, or the errors of
    ///   `request(method:uri:parameters:headers:)`.
    public func request<T: Encodable>(method: HTTPMethod, uri: URI, encoding value: T, encoder: CourierJSONEncoder = CourierJSONEncoder(), headers: HTTPHeaders = HTTPHeaders()) throws(RequestSerializationError) -> HTTPRequest {
        let json: JSONValue
        do { json = try encoder.encodeToJSONValue(value) } catch {
            throw RequestSerializationError(.invalidJSONValue, detail: "\(T.self) cannot be written as JSON", underlying: error)
        }
        return try request(method: method, uri: uri, parameters: json, headers: headers)
    }
}

extension QueryValue {
    /// The query value of a JSON value: integers stay integers (their text beyond Int64), other
    /// numbers become doubles (their text beyond Double's range),
    /// objects dictionaries (members in order), null the bare key.
    /// - Parameter json: the JSON value.
    public init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let number):
            // Integers as integers (beyond Int64 as their exact text, as NSNumber describes an
            // unsigned long long); other numbers as doubles, or their text when out of range.
            if let integer = number.int64 { self = .int(integer) }
            else if number.isIntegerLiteral { self = .string(number.text) }
            else if let double = number.double { self = .double(double) }
            else { self = .string(number.text) }
        case .array(let values): self = .array(values.map(QueryValue.init(json:)))
        case .object(let object): self = .dictionary(object.members.map { ($0.key, QueryValue(json: $0.value)) })
        }
    }
}
