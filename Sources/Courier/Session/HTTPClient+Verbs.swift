// HTTPClient's verbs (AFHTTPSessionManager's GET:, POST:, PUT:, PATCH:, DELETE:), each in three
// forms, so the response type is a choice of the call, not of the client:
//
//   client.get("status")                                  the client's response serializer
//   client.get("users/42", as: User.self)                 a Decodable from JSON (DecodableResponseSerializer)
//   client.get("avatar", serializer: DataResponseSerializer())   any serializer
//
// All three go through `send(_:_:parameters:headers:serializer:)`; HEAD is in HTTPClient.swift
// (it has a head and no value) and the multipart POST in HTTPClient+Multipart.swift.

import CourierHTTP1
import CourierJSON

extension HTTPClient {
    // MARK: GET

    /// GET (parameters in the query), serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func get(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.get, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// GET (parameters in the query), serialized by `serializer` for this call.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func get<Serializer: ResponseSerializer>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        try await send(.get, path, parameters: parameters, headers: headers, serializer: serializer)
    }

    /// GET (parameters in the query), the JSON body decoded as `type` (`DecodableResponseSerializer`: status
    /// 200–299, a JSON content type; an empty body is an error unless `type` is an Optional).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func get<Value: Decodable & Sendable>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder()
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await send(.get, path, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder))
    }

    // MARK: POST

    /// POST (parameters in the body), serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.post, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// POST (parameters in the body), serialized by `serializer` for this call.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post<Serializer: ResponseSerializer>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        try await send(.post, path, parameters: parameters, headers: headers, serializer: serializer)
    }

    /// POST (parameters in the body), the JSON body decoded as `type` (`DecodableResponseSerializer`: status
    /// 200–299, a JSON content type; an empty body is an error unless `type` is an Optional).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post<Value: Decodable & Sendable>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder()
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await send(.post, path, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder))
    }

    // MARK: PUT

    /// PUT (parameters in the body), serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func put(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.put, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// PUT (parameters in the body), serialized by `serializer` for this call.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func put<Serializer: ResponseSerializer>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        try await send(.put, path, parameters: parameters, headers: headers, serializer: serializer)
    }

    /// PUT (parameters in the body), the JSON body decoded as `type` (`DecodableResponseSerializer`: status
    /// 200–299, a JSON content type; an empty body is an error unless `type` is an Optional).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func put<Value: Decodable & Sendable>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder()
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await send(.put, path, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder))
    }

    // MARK: PATCH

    /// PATCH (parameters in the body), serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func patch(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.patch, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// PATCH (parameters in the body), serialized by `serializer` for this call.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func patch<Serializer: ResponseSerializer>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        try await send(.patch, path, parameters: parameters, headers: headers, serializer: serializer)
    }

    /// PATCH (parameters in the body), the JSON body decoded as `type` (`DecodableResponseSerializer`: status
    /// 200–299, a JSON content type; an empty body is an error unless `type` is an Optional).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func patch<Value: Decodable & Sendable>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder()
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await send(.patch, path, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder))
    }

    // MARK: DELETE

    /// DELETE (parameters in the query), serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func delete(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.delete, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// DELETE (parameters in the query), serialized by `serializer` for this call.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func delete<Serializer: ResponseSerializer>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        try await send(.delete, path, parameters: parameters, headers: headers, serializer: serializer)
    }

    /// DELETE (parameters in the query), the JSON body decoded as `type` (`DecodableResponseSerializer`: status
    /// 200–299, a JSON content type; an empty body is an error unless `type` is an Optional).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func delete<Value: Decodable & Sendable>(
        _ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder()
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await send(.delete, path, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder))
    }
}
