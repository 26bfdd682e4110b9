require_relative "../test_helper"

# ActionView's compiled templates are named by their file's path, the same
# in every process, instead of Rails' method names, which carry the
# path's String#hash (seeded per process) and the template object's id.
# Rails is not needed: the methods are defined as ActionView defines them
# (module_eval with the template's file and line 0).
class TestTemplateNames < TracegraphTest
  ROOT = Dir.pwd

  def test_a_partial_with_a_negative_hash_is_named_by_its_path
    assert_equal "app/views/posts/_post.html.erb",
                 Tracegraph::Naming.template_name("#<Class:action_view/base.rb:191>#_app_views_posts__post_html_erb___2873853593807101210_5160",
                                                  "#{ROOT}/app/views/posts/_post.html.erb")
  end

  def test_a_layout_with_a_positive_hash_is_named_by_its_path
    assert_equal "app/views/layouts/application.html.erb",
                 Tracegraph::Naming.template_name("ActionView::Base#_app_views_layouts_application_html_erb__4396618645847081562_5140",
                                                  "#{ROOT}/app/views/layouts/application.html.erb")
  end

  def test_blocks_in_a_template_keep_their_prefix
    assert_equal "block in app/views/posts/index.html.erb",
                 Tracegraph::Naming.template_name("block in #<Class:action_view/base.rb:191>#_app_views_posts_index_html_erb___1_2",
                                                  "#{ROOT}/app/views/posts/index.html.erb")
    assert_equal "block (2 levels) in app/views/posts/index.html.erb",
                 Tracegraph::Naming.template_name("block (2 levels) in X#_app_views_posts_index_html_erb__1_2",
                                                  "#{ROOT}/app/views/posts/index.html.erb")
  end

  # A template outside the working directory (an engine's, a gem's) is
  # named by its full path, from which Rails built the name.
  def test_a_template_outside_the_working_directory_keeps_its_full_path
    assert_equal "/srv/engine/app/views/admin/show.html.erb",
                 Tracegraph::Naming.template_name("X#__srv_engine_app_views_admin_show_html_erb___77_88",
                                                  "/srv/engine/app/views/admin/show.html.erb")
  end

  def test_methods_that_only_look_like_templates_keep_their_names
    # The name's path part is not this file's.
    assert_nil Tracegraph::Naming.template_name("X#_app_views_posts_index_html_erb__1_2", "#{ROOT}/app/models/post.rb")
    assert_nil Tracegraph::Naming.template_name("Foo#_run__1_2", "#{ROOT}/lib/foo.rb")
    assert_nil Tracegraph::Naming.template_name("Foo#bar", "#{ROOT}/app/views/x.html.erb")
    assert_nil Tracegraph::Naming.template_name("Foo#_app_views_x_html_erb__1_2", nil)
  end

  # Through a real profile: two "boots" compile the same template into
  # methods with different numbers; both profiles name it the same.
  def test_profiles_of_two_compilations_name_the_template_alike
    file = "#{ROOT}/app/views/posts/_post.html.erb"
    names = %w[_app_views_posts__post_html_erb___2873853593807101210_5160
               _app_views_posts__post_html_erb__4396618645847081562_5140].map do |method|
      container = Class.new
      container.module_eval("def #{method}(posts)\n posts.each { |p| p.to_s }\nend", file, 0)
      profile = Tracegraph.profile { container.new.public_send(method, [1, 2]) }
      profile.methods.map(&:name).grep(%r{app/views}).sort
    end
    assert_equal ["app/views/posts/_post.html.erb", "block in app/views/posts/_post.html.erb"], names[0]
    assert_equal names[0], names[1]
  end

  # ActionView's anonymous view class holds the compiled templates; its
  # name comes from its own methods only, not from whichever templates
  # happen to be compiled (whose paths may sort first).
  def test_the_view_class_is_named_without_its_templates
    view_class = Class.new { define_method(:compiled_method_container) { self.class } }
    line = __LINE__ - 1
    view_class.module_eval("def _aaa_views_x_html_erb___1_2; end", "#{ROOT}/aaa/views/x.html.erb", 0)
    assert_equal "#<Class:test/ruby/model/test_template_names.rb:#{line}>", Tracegraph::Naming.module_name(view_class)
  end
end
