// The class an instruction needs initialized, read from bytecodes and a constant pool in
// class-file form, as GetBytecodes and GetConstantPool give them (class_init_lock.h).
#include "agent/class_init_lock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stackscope::agent {
namespace {

// A constant pool table built entry by entry, with the class file's indices.
class Pool {
 public:
  unsigned utf8(const std::string& text) {
    bytes_.insert(bytes_.end(), {1, static_cast<unsigned char>(text.size() >> 8), static_cast<unsigned char>(text.size())});
    bytes_.insert(bytes_.end(), text.begin(), text.end());
    return next_++;
  }
  unsigned classNamed(const std::string& name) { return entry(7, {utf8(name)}); }
  unsigned fieldOf(unsigned klass) { return entry(9, {klass, nameAndType()}); }
  unsigned methodOf(unsigned klass) { return entry(10, {klass, nameAndType()}); }
  unsigned interfaceMethodOf(unsigned klass) { return entry(11, {klass, nameAndType()}); }
  unsigned longConstant() {  // takes two indices
    bytes_.insert(bytes_.end(), {5, 0, 0, 0, 0, 0, 0, 0, 42});
    next_ += 2;
    return next_ - 2;
  }
  const unsigned char* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  int count() const { return static_cast<int>(next_); }

 private:
  unsigned nameAndType() { return entry(12, {utf8("x"), utf8("I")}); }
  unsigned entry(unsigned char tag, std::vector<unsigned> indices) {
    bytes_.push_back(tag);
    for (unsigned index : indices) bytes_.insert(bytes_.end(), {static_cast<unsigned char>(index >> 8), static_cast<unsigned char>(index)});
    return next_++;
  }
  std::vector<unsigned char> bytes_;
  unsigned next_ = 1;
};

std::vector<unsigned char> instruction(unsigned char opcode, unsigned index) {
  // aload_0 first, so that the instruction is at bci 1; a return after it.
  return {0x2a, opcode, static_cast<unsigned char>(index >> 8), static_cast<unsigned char>(index), 0xb1};
}

std::string neededAt(const std::vector<unsigned char>& code, int64_t bci, const Pool& pool) {
  return classNeededAt(code.data(), code.size(), bci, pool.data(), pool.size(), pool.count());
}

TEST(ClassInitLock, EachInstructionThatInitializesAClassNamesIt) {
  Pool pool;
  pool.longConstant();  // entries after a long are one index further on
  const unsigned shop = pool.classNamed("com/shop/Cart");
  const unsigned ledger = pool.classNamed("com/bank/Ledger");
  const unsigned codec = pool.classNamed("com/bank/Codec");
  EXPECT_EQ(neededAt(instruction(0xbb, shop), 1, pool), "com/shop/Cart") << "new";
  EXPECT_EQ(neededAt(instruction(0xb2, pool.fieldOf(ledger)), 1, pool), "com/bank/Ledger") << "getstatic";
  EXPECT_EQ(neededAt(instruction(0xb3, pool.fieldOf(shop)), 1, pool), "com/shop/Cart") << "putstatic";
  EXPECT_EQ(neededAt(instruction(0xb8, pool.methodOf(ledger)), 1, pool), "com/bank/Ledger") << "invokestatic";
  EXPECT_EQ(neededAt(instruction(0xb8, pool.interfaceMethodOf(codec)), 1, pool), "com/bank/Codec")
      << "invokestatic of an interface's static method";
}

TEST(ClassInitLock, OtherInstructionsAndPlacesNameNothing) {
  Pool pool;
  const unsigned shop = pool.classNamed("com/shop/Cart");
  EXPECT_EQ(neededAt(instruction(0xb6, pool.methodOf(shop)), 1, pool), "") << "invokevirtual";
  EXPECT_EQ(neededAt(instruction(0xc2, 0), 1, pool), "") << "monitorenter: a program's own int[] lock";
  EXPECT_EQ(neededAt(instruction(0xbb, shop), 0, pool), "") << "the aload_0 before it";
  EXPECT_EQ(neededAt(instruction(0xbb, shop), -1, pool), "") << "a native frame";
  EXPECT_EQ(neededAt(instruction(0xbb, shop), 3, pool), "") << "an operand, too near the end";
  // `synchronized (ownLock) { ownLock.hashCode(); }`: the interpreter waits for the monitor
  // with its index already on the getstatic after the monitorenter.
  const std::vector<unsigned char> entering{0xc2, 0xb2, 0x00, static_cast<unsigned char>(pool.fieldOf(shop)), 0xb1};
  EXPECT_EQ(neededAt(entering, 1, pool), "") << "right after a monitorenter";
}

TEST(ClassInitLock, WrongOrMissingEntriesNameNothing) {
  Pool pool;
  const unsigned name = pool.utf8("com/shop/Cart");
  const unsigned long_index = pool.longConstant();
  EXPECT_EQ(neededAt(instruction(0xbb, name), 1, pool), "") << "new of a Utf8 entry";
  EXPECT_EQ(neededAt(instruction(0xbb, long_index + 1), 1, pool), "") << "the second half of a long";
  EXPECT_EQ(neededAt(instruction(0xbb, 0), 1, pool), "") << "index 0";
  EXPECT_EQ(neededAt(instruction(0xbb, 999), 1, pool), "") << "past the pool";
  EXPECT_EQ(neededAt(instruction(0xb2, pool.classNamed("com/shop/Cart")), 1, pool), "") << "getstatic of a class";
  // A pool that claims more entries than its bytes hold.
  const std::vector<unsigned char> code = instruction(0xbb, 1);
  EXPECT_EQ(classNeededAt(code.data(), code.size(), 1, pool.data(), pool.size(), pool.count() + 5), "");
}

}  // namespace
}  // namespace stackscope::agent
