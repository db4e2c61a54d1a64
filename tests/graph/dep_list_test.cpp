// DepList, the dependency list of a task: two ids inline, more on the heap, and the std::vector behaviour its
// users rely on (assignment from vectors and braces, push_back, iteration, copies and moves).
#include "sim/graph/dep_list.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/graph/event_graph.hpp"

namespace podsim {
namespace {

std::vector<TaskId> ids(const DepList& list) {
  return {list.begin(), list.end()};
}

TEST(DepList, GrowsFromInlineToHeap) {
  DepList list;
  EXPECT_TRUE(list.empty());
  for (TaskId id = 0; id < 9; ++id) {
    list.push_back(id * 10);
    ASSERT_EQ(list.size(), static_cast<std::size_t>(id + 1));
  }
  EXPECT_EQ(ids(list), (std::vector<TaskId>{0, 10, 20, 30, 40, 50, 60, 70, 80}));
  EXPECT_EQ(list[4], 40);
  EXPECT_EQ(list.back(), 80);
  list.clear();
  EXPECT_TRUE(list.empty());
  list.push_back(7);
  EXPECT_EQ(ids(list), std::vector<TaskId>{7});
}

TEST(DepList, AssignsCopiesAndMovesLikeAVector) {
  const std::vector<TaskId> five{5, 4, 3, 2, 1};
  DepList a = five;
  DepList b = {8, 9};
  DepList c = a;  // heap copy
  EXPECT_EQ(ids(c), five);
  c = b;  // inline over heap
  EXPECT_EQ(ids(c), (std::vector<TaskId>{8, 9}));
  DepList d = std::move(a);  // takes the heap block
  EXPECT_EQ(ids(d), five);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from lists are empty
  d = std::move(b);
  EXPECT_EQ(ids(d), (std::vector<TaskId>{8, 9}));
  d = {1, 2, 3};
  EXPECT_EQ(ids(d), (std::vector<TaskId>{1, 2, 3}));
  const std::vector<TaskId> back = d;
  EXPECT_EQ(back, (std::vector<TaskId>{1, 2, 3}));
  EXPECT_TRUE(d == DepList({1, 2, 3}));
  EXPECT_FALSE(d == DepList({1, 2}));
}

TEST(DepList, TasksStaySmall) {
  EXPECT_EQ(sizeof(DepList), 12u);
  EXPECT_EQ(sizeof(Task), 48u);
  std::vector<Task> tasks(3);
  tasks[0].deps = {1, 2, 3, 4};
  tasks[1] = tasks[0];
  tasks.resize(1000);  // moves the heap lists
  EXPECT_EQ(ids(tasks[1].deps), (std::vector<TaskId>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace podsim
