// Builds small onnx::ModelProto graphs in tests.
#pragma once

#include <onnx/onnx_pb.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/tensor.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 13) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }
  // A graph input; dims < 0 are symbolic ("N").
  ModelBuilder& Input(const std::string& name, DataType t, const std::vector<int64_t>& dims) {
    Fill(model_.mutable_graph()->add_input(), name, t, dims);
    return *this;
  }
  ModelBuilder& Output(const std::string& name, DataType t, const std::vector<int64_t>& dims = {}) {
    Fill(model_.mutable_graph()->add_output(), name, t, dims);
    return *this;
  }
  ModelBuilder& Initializer(const std::string& name, const Tensor& value) {
    TensorToProto(value, name, model_.mutable_graph()->add_initializer());
    return *this;
  }
  onnx::NodeProto& Node(const std::string& op, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs, const std::string& name = "") {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  onnx::ModelProto& model() { return model_; }
  std::string Serialize() const { return model_.SerializeAsString(); }

 private:
  static void Fill(onnx::ValueInfoProto* vi, const std::string& name, DataType t, const std::vector<int64_t>& dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(t));
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param("N");
    }
  }
  onnx::ModelProto model_;
};

}  // namespace testing
}  // namespace ptq
