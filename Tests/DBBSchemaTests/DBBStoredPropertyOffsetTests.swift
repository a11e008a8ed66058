import DBBSchema
import Foundation
import Testing

/// Where key-path entries find their properties' storage, so that rows are read without applying key paths.
@Suite struct DBBStoredPropertyOffsetTests {
    final class Sample {
        var count = 1
        var name = "first"
        var start: Date?
        var observed = 0 {
            didSet { observedSets += 1 }
        }
        var observedSets = 0
        var doubled: Int {
            get { count * 2 }
            set { count = newValue / 2 }
        }
    }

    class Open {
        var count = 1
    }

    @Test func storedPropertiesOfAFinalClassHaveDistinctOffsetsReadAndWrittenThroughTheirStorage() throws {
        let sample = Sample()
        let countOffset = try #require(storedPropertyOffset(of: \Sample.count, in: sample))
        let nameOffset = try #require(storedPropertyOffset(of: \Sample.name, in: sample))
        let startOffset = try #require(storedPropertyOffset(of: \Sample.start, in: sample))
        #expect(Set([countOffset, nameOffset, startOffset]).count == 3)
        #expect([countOffset, nameOffset, startOffset].allSatisfy { $0 >= 2 * MemoryLayout<Int>.size })

        // Writing through the storage is what the key path then reads, on any object of the class.
        let other = Sample()
        storage(of: other, at: nameOffset, as: String.self).pointee = "written through storage"
        storage(of: other, at: countOffset, as: Int.self).pointee = 42
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        storage(of: other, at: startOffset, as: Date?.self).pointee = date
        #expect(other.name == "written through storage")
        #expect(other.count == 42)
        #expect(other.start == date)
        #expect(storage(of: other, at: nameOffset, as: String.self).pointee == other[keyPath: \Sample.name])
        #expect(sample.name == "first")
    }

    @Test func offsetsLieInsideTheObjectsOwnAllocation() throws {
        let sample = Sample()
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(sample).toOpaque())
        // The C library reports the size of an object's heap block, which bounds every offset found.
        let size = try #require(allocationSize(of: base))
        let stringEnd = try #require(storedPropertyOffset(of: \Sample.name, in: sample)) + MemoryLayout<String>.size
        let dateEnd = try #require(storedPropertyOffset(of: \Sample.start, in: sample)) + MemoryLayout<Date?>.size
        #expect(stringEnd <= size)
        #expect(dateEnd <= size)
        #expect(size < 1 << 10)
    }

    @Test func propertiesReachedThroughAccessorsHaveNoOffset() {
        let sample = Sample()
        // Observers must run, a computed property has no storage, and a subclass may override an open one.
        #expect(storedPropertyOffset(of: \Sample.observed, in: sample) == nil)
        #expect(storedPropertyOffset(of: \Sample.doubled, in: sample) == nil)
        #expect(storedPropertyOffset(of: \Open.count, in: Open()) == nil)
        // An object of another class is no prototype for the key path's root.
        #expect(storedPropertyOffset(of: \Sample.count, in: Open()) == nil)
    }
}
