// docs/migrating-from-afnetworking.md, compiled: each block between `// doc: docs/migrating-from-afnetworking.md N`
// and `// end doc` is the guide's Nth swift block, line for line (scripts/check-doc-examples).
// `import Courier` alone: this target depends on Courier only. The functions are not run (they
// would need the network); that they compile is the test. Blocks after the first use the
// `manager` the first one makes, passed in here.

import Courier
import Testing

/// The guide's model type (the first block declares its own copy).
struct User: Codable, Sendable { let id: Int; let name: String }

/// The guide's manager: AFHTTPSessionManager's defaults.
typealias Manager = HTTPClient<FormRequestSerializer, JSONResponseSerializer>

@Suite struct MigrationGuideTests {
    @Test("the guide's blocks are compiled: this target builds, and the manager they share is what the guide says")
    func managerDefaults() throws {
        let manager = try Manager(baseURL: "https://api.example.com/v1")
        #expect(manager.baseURL?.description == "https://api.example.com/v1/")
    }

    func httpClientShape() async throws {
        // doc: docs/migrating-from-afnetworking.md 1
        struct User: Codable, Sendable { let id: Int; let name: String }

        // [[AFHTTPSessionManager alloc] initWithBaseURL:[NSURL URLWithString:@"https://api.example.com/v1"]]
        let manager = try HTTPClient(baseURL: "https://api.example.com/v1")   // "/" appended, as AFNetworking does

        // GET:parameters:headers:progress:success:failure: — the value and the response, or a thrown SessionError
        let (json, response) = try await manager.get("users", parameters: ["page": 2])   // JSONValue? (the default)
        let (user, _) = try await manager.get("users/42", as: User.self)                  // any Decodable, per call
        let (bytes, _) = try await manager.get("users/42/avatar", serializer: DataResponseSerializer())
        print(json?["total"] as Any, response.status, user.name, bytes.readableBytes)

        // POST:, PUT:, PATCH:, DELETE:, HEAD:
        let (created, _) = try await manager.post("users", parameters: ["name": "Ada"], as: User.self)
        _ = try await manager.put("users/\(created.id)", parameters: ["name": "Ada L."])
        _ = try await manager.patch("users/\(created.id)", parameters: ["name": "Ada"])
        _ = try await manager.delete("users/\(created.id)")
        let head = try await manager.head("users/42")                                    // HTTPResponseHead

        // HTTPRequestHeaders: per-request fields
        _ = try await manager.get("me", headers: ["Authorization": "Bearer t0k3n"])

        // success:/failure: blocks: one Result, on an executor of your choosing; the task is returned
        manager.send(.get, "users/42", serializer: DecodableResponseSerializer(User.self), on: .task) { result in
            switch result {
            case .success(let (user, response)): print(user.name, response.status)
            case .failure(let error): print(error.afNetworkingCode ?? 0, error)   // -1011, -1016, -999, ...
            }
        }
        print(head.status)
        // end doc
    }

    func multipartShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 2
        // POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:
        let (json, _) = try await manager.post("photos", parameters: ["album": "trips"],
                                               uploadProgress: { print($0.fractionCompleted ?? 0) }) { form in
            try await form.appendFile(atPath: "/tmp/photo.jpg", name: "file")     // appendPartWithFileURL:name:error:
            try await form.appendFile(atPath: "/tmp/notes.bin", name: "notes", fileName: "notes.bin",
                                      mimeType: "application/octet-stream")       // ...fileName:mimeType:error:
            try form.appendData(ByteBuffer(string: "{}"), name: "meta", fileName: "meta.json",
                                mimeType: "application/json")                     // appendPartWithFileData:name:fileName:mimeType:
            try form.appendField(name: "caption", value: "Lisbon")                // appendPartWithFormData:name:
        }
        print(json as Any)
        // end doc
    }

    func requestSerializerShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 3
        var serializer = JSONRequestSerializer()                           // [AFJSONRequestSerializer serializer]
        serializer.setValue("secret", forHeader: "X-API-Key")              // setValue:forHTTPHeaderField:
        serializer.setAuthorization(username: "ada", password: "lovelace") // setAuthorizationHeaderFieldWithUsername:password:
        serializer.timeout = .seconds(30)                                  // timeoutInterval
        // requestWithMethod:URLString:parameters:error:
        let request = try serializer.request(method: .post, uri: try URI(parsing: "https://api.example.com/v1/users"),
                                             parameters: ["name": "Ada", "tags": ["a", "b"]])
        // manager.requestSerializer = serializer: a client is made with its serializers
        let jsonClient = try HTTPClient(baseURL: "https://api.example.com/v1", requestSerializer: serializer,
                                        responseSerializer: JSONResponseSerializer())
        print(request.headers, jsonClient.baseURL?.description ?? "")
        // end doc
    }

    func responseSerializerShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 4
        var json = JSONResponseSerializer()                       // [AFJSONResponseSerializer serializer]
        json.removesKeysWithNullValues = true                     // removesKeysWithNullValues
        json.acceptableContentTypes?.insert("text/plain")         // acceptableContentTypes
        json.acceptableStatusCodes = Set(200...299).union([304])  // acceptableStatusCodes
        var compound = CompoundResponseSerializer()               // [AFCompoundResponseSerializer compoundSerializerWithResponseSerializers:]
        compound.append(json)
        compound.append(XMLResponseSerializer())                  // AFXMLParserResponseSerializer
        let (feed, _) = try await manager.get("feed", serializer: compound)                     // (any Sendable)?
        let (text, _) = try await manager.get("robots.txt", serializer: StringResponseSerializer())
        let (image, _) = try await manager.get("logo.png", serializer: ImageResponseSerializer()) // format and size
        print(feed as Any, text, image?.width ?? 0)
        // end doc
    }

    func sessionShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 5
        let session = Session(configuration: SessionConfiguration())       // initWithSessionConfiguration:
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/data.json"))

        // dataTaskWithRequest:uploadProgress:downloadProgress:completionHandler:
        let task = session.dataTask(with: request, serializer: JSONResponseSerializer())
        task.setProgressHandler(upload: nil, download: { print($0.completed, $0.total ?? 0) })
        task.resume()
        let outcome = await task.response                  // the completion handler's (response, responseObject, error)
        print(outcome.head?.status ?? 0, outcome.value as Any, outcome.error as Any)
        let json = try await task.value                    // or the value alone, the error thrown; `await task.result` as a Result
        print(json as Any)

        // uploadTaskWithRequest:fromFile:progress:completionHandler:
        let upload = session.uploadTask(with: HTTPRequest(method: .put, uri: try URI(parsing: "https://example.com/f")),
                                        from: .file(path: "/tmp/f"))
        print(await upload.response.head?.status ?? 0)

        // downloadTaskWithRequest:progress:destination:completionHandler:
        let download = await session.downloadTask(with: request) { _, _ in "/tmp/data.json" }.response   // value: the path
        if let error = download.error, let resumeData = download.resumeData {
            // downloadTaskWithResumeData:progress:destination:completionHandler:
            print(error, try await session.downloadTask(resumingWith: resumeData) { _, _ in "/tmp/data.json" }.value)
        }

        // a body read as it arrives (no AFNetworking counterpart): the same outcome, known at the final head
        let streamed = try await session.streamTask(with: request).value
        for try await slice in streamed.body { print(streamed.head.status, slice.readableBytes) }

        // invalidateSessionCancelingTasks:resetSession:
        await session.invalidateAndCancel()                  // or finishTasksAndInvalidate()
        await manager.invalidateSession(cancelingTasks: true, resetSession: true)
        // end doc
    }

    func securityPolicyShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 6
        // [AFSecurityPolicy policyWithPinningMode:AFSSLPinningModeCertificate withPinnedCertificates:
        //     [AFSecurityPolicy certificatesInBundle:bundle]]
        var policy = SecurityPolicy(pinningMode: .certificate,
                                    pinnedCertificates: try await SecurityPolicy.certificates(inDirectory: "/etc/myapp/pins"))
        policy.validatesDomainName = true                    // validatesDomainName
        policy.allowInvalidCertificates = false              // allowInvalidCertificates
        var configuration = SessionConfiguration()
        configuration.securityPolicy = policy                // manager.securityPolicy = policy
        let pinned = try HTTPClient(baseURL: "https://api.example.com/", configuration: configuration)

        // public-key pinning, with curl's sha256// pins as well as certificates
        var keys = SecurityPolicy(pinningMode: .publicKey)
        keys.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        print(pinned.baseURL?.description ?? "", keys.pinningMode)
        // end doc
    }

    func reachabilityShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 7
        let reachability = Reachability.shared               // [AFNetworkReachabilityManager sharedManager]
        reachability.setStatusChangeHandler { status in      // setReachabilityStatusChangeBlock:
            print("now", status)
        }
        reachability.start()                                 // startMonitoring
        print(reachability.isReachable,                      // reachable
              reachability.isReachableViaWired,              // (no WWAN on Linux; wired, wireless, other)
              reachability.isReachableViaWireless)           // reachableViaWiFi
        for await status in reachability.statusUpdates() {   // the changes as an AsyncSequence
            print(status)
            break
        }
        reachability.stop()                                  // stopMonitoring
        // end doc
    }

    func activityTrackerShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 8
        let tracker = NetworkActivityTracker.shared          // [AFNetworkActivityIndicatorManager sharedManager]
        var trackedConfiguration = SessionConfiguration()
        trackedConfiguration.activityTracker = tracker       // enabled = YES: this session's tasks are counted
        tracker.incrementActivityCount()                     // incrementActivityCount
        tracker.decrementActivityCount()                     // decrementActivityCount
        print(tracker.activityCount, tracker.isVisible)      // activityCount, isNetworkActivityIndicatorVisible
        for await count in tracker.activityCounts() {        // the count and its changes, for your own indicator
            print(count)
            break
        }
        // end doc
    }

    func resourceDownloaderShape(_ manager: Manager) async throws {
        // doc: docs/migrating-from-afnetworking.md 9
        // [[AFAutoPurgingImageCache alloc] initWithMemoryCapacity:preferredMemoryCapacity:]
        let cache = AutoPurgingCache<String, ImageInfo?>(memoryCapacity: 100 * 1024 * 1024,
                                                         preferredMemoryUsageAfterPurge: 60 * 1024 * 1024,
                                                         cost: { UInt64(($0?.width ?? 0) * ($0?.height ?? 0) * 4) })
        // [[AFImageDownloader alloc] initWithSessionManager:... maximumActiveDownloads:4 imageCache:cache]
        let downloader = ResourceDownloader(session: Session(), serializer: ImageResponseSerializer(), cache: cache)
        let logo = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/logo.png"))
        // downloadImageForURLRequest:success:failure: → a receipt, or nil when answered at once (cached)
        let receipt = downloader.download(logo) { result in print(result) }
        if let receipt { _ = downloader.cancel(receipt) }    // cancelTaskForImageDownloadReceipt:
        let info = try await downloader.value(for: logo)     // or simply await the value
        print(info?.format as Any, cache.memoryUsage)        // memoryUsage
        // end doc
    }

    func bindingsShape() async throws {
        // doc: docs/migrating-from-afnetworking.md 10
        final class Avatar: Sendable {                       // any object: a TUI cell, a GTK widget's owner, a cache slot
            func show(_ update: ResourceBindingUpdate<ImageInfo?>) { print(update) }
        }
        let avatar = Avatar()
        let logo = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/logo.png"))

        // UIImageView+AFNetworking: setImageWithURLRequest:placeholderImage:success:failure:
        let images = ResourceBinding<Avatar, ImageInfo?>(
            downloader: ResourceDownloader(session: Session(), serializer: ImageResponseSerializer())) { avatar, update in
            avatar.show(update)                              // .placeholder, .value(_, fromCache:), .failed
        }
        images.load(logo, into: avatar)                      // cached: at once, no request; else loads it
        images.cancelLoad(for: avatar)                       // cancelImageDownloadTask

        // UIProgressView+AFNetworking, UIActivityIndicatorView+AFNetworking
        let indicators = TaskBinding<Avatar> { _, update in print(update) }   // .activity(Bool), .downloadProgress(p), ...
        let task = Session().dataTask(with: logo)
        indicators.bind(task, to: avatar)                    // the task bound to this avatar before is cancelled
        task.resume()
        // end doc
    }
}
