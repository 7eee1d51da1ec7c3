#include "server/answer_book.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

namespace melee::server {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// A record: the viewer (one byte), then varint-prefixed command_id, the seq as a varint, then
// varint-prefixed receipt, seal nonce and sealed bytes.
void AppendVarint(std::string& out, uint64_t value) {
  uint8_t buffer[10];  // the longest varint of 64 bits
  const uint8_t* end = CodedOutputStream::WriteVarint64ToArray(value, buffer);
  out.append(reinterpret_cast<const char*>(buffer), static_cast<size_t>(end - buffer));
}

void AppendBytes(std::string& out, std::string_view bytes) {
  AppendVarint(out, bytes.size());
  out.append(bytes);
}

// Reads records the book wrote itself: a failure is a bug, not bad input.
class RecordReader {
 public:
  RecordReader(const std::string& records, uint32_t offset)
      : records_(records),
        offset_(offset),
        in_(reinterpret_cast<const uint8_t*>(records.data()) + offset,
            static_cast<int>(std::min<size_t>(records.size() - offset,
                                              std::numeric_limits<int>::max()))) {}

  uint8_t Byte() {
    uint8_t byte = 0;
    if (!in_.ReadRaw(&byte, 1)) Corrupt();
    return byte;
  }
  uint64_t Varint() {
    uint64_t value = 0;
    if (!in_.ReadVarint64(&value)) Corrupt();
    return value;
  }
  std::string_view Bytes() {
    const uint64_t size = Varint();
    const size_t at = offset_ + static_cast<size_t>(in_.CurrentPosition());
    if (size > records_.size() - at || !in_.Skip(static_cast<int>(size))) Corrupt();
    return std::string_view(records_).substr(at, size);
  }

 private:
  [[noreturn]] void Corrupt() const {
    throw std::logic_error("AnswerBook: the record at " + std::to_string(offset_) +
                           " does not read back");
  }

  const std::string& records_;
  uint32_t offset_;
  CodedInputStream in_;
};

}  // namespace

AnswerBook::AnswerBook() : offsets_(0, Hash{this}, Equal{this}) {}

size_t AnswerBook::Hash::operator()(const Key& key) const {
  const size_t id = std::hash<std::string_view>{}(key.command_id);
  return id ^ (static_cast<size_t>(key.viewer) + 0x9e3779b97f4a7c15ULL + (id << 6) + (id >> 2));
}

bool AnswerBook::Equal::operator()(const Key& key, uint32_t offset) const {
  const Key recorded = book->KeyAt(offset);
  return recorded.viewer == key.viewer && recorded.command_id == key.command_id;
}

AnswerBook::Key AnswerBook::KeyAt(uint32_t offset) const {
  RecordReader reader(records_, offset);
  const auto viewer = static_cast<engine::Viewer>(reader.Byte());
  return Key{.viewer = viewer, .command_id = reader.Bytes()};
}

AnswerBook::Answer AnswerBook::AnswerAt(uint32_t offset) const {
  RecordReader reader(records_, offset);
  reader.Byte();
  reader.Bytes();
  Answer answer;
  answer.seq = reader.Varint();
  answer.receipt = reader.Bytes();
  answer.seal_nonce = reader.Bytes();
  answer.sealed = reader.Bytes();
  return answer;
}

void AnswerBook::Record(engine::Viewer viewer, std::string_view command_id,
                        const Answer& answer) {
  const size_t offset = records_.size();
  if (offset > std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("AnswerBook: more than 4 GiB of answers in one match");
  }
  records_.push_back(static_cast<char>(viewer));
  AppendBytes(records_, command_id);
  AppendVarint(records_, answer.seq);
  AppendBytes(records_, answer.receipt);
  AppendBytes(records_, answer.seal_nonce);
  AppendBytes(records_, answer.sealed);
  // A command answered again (a replay's, or a default the server entered) points at its newest
  // record; the old one stays in the string, unreferenced.
  offsets_.erase(Key{.viewer = viewer, .command_id = command_id});
  offsets_.insert(static_cast<uint32_t>(offset));
}

std::optional<AnswerBook::Answer> AnswerBook::Find(engine::Viewer viewer,
                                                   std::string_view command_id) const {
  const auto it = offsets_.find(Key{.viewer = viewer, .command_id = command_id});
  if (it == offsets_.end()) return std::nullopt;
  return AnswerAt(*it);
}

size_t AnswerBook::bytes() const {
  return records_.capacity() + offsets_.bucket_count() * (sizeof(uint32_t) + 1);
}

}  // namespace melee::server
