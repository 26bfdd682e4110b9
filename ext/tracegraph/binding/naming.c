/*
 * naming.c - method and block names and source locations, at stop.
 *
 * Names are the same in every run: anonymous owners and singleton classes
 * of other objects, which Ruby names by memory address, are named here by
 * where they were defined (owner_name, the one implementation of the rule;
 * Tracegraph::Naming.module_name and .object_name call it), and blocks the
 * way backtraces print them (Tracegraph::Naming.block_name).
 *
 * The Ruby this file calls is work only Ruby does, and none of it names an
 * owner, so no call comes back here: Tracegraph.short_path and
 * .working_dir_prefix (paths), Naming.template_name (ActionView's compiled
 * templates), Naming.constant_holding (a plain object held by a constant,
 * "ENV") and Naming.block_name.
 *
 * Uses: naming.h, session.h (the method_key type only, and ruby_vm.h's
 * ruby_vm_is_iseq), core tg_gc.h.
 */
#include "naming.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <ruby/debug.h>
#include <ruby/encoding.h>

#include "tg_gc.h"

static VALUE mTracegraph;
static ID id_attached, id_instance_method, id_source_location, id_naming, id_block_name, id_bind_call, id_short_path,
    id_working_dir_prefix, id_pwd, id_template_name, id_constant_holding, id_compare_by_identity;

/* A block's first line: in its key without the VM reads, else its iseq's. */
static int block_line(const method_key *k)
{
    if (k->line) return k->line;
    VALUE line = rb_profile_frame_first_lineno(k->klass);
    return FIXNUM_P(line) ? FIX2INT(line) : 0;
}

/* Names and paths are labelled UTF-8 here, where it costs nothing on a
 * fresh string; Profile.clean_name then only has to check them (and
 * scrubs the rare one in another encoding). */
static VALUE as_utf8(VALUE fresh)
{
    return rb_enc_associate(fresh, rb_utf8_encoding());
}

/* The object a singleton class belongs to. */
static VALUE singleton_object(VALUE singleton_class)
{
#ifdef HAVE_RB_CLASS_ATTACHED_OBJECT
    return rb_class_attached_object(singleton_class);
#else
    return rb_attr_get(singleton_class, id_attached);
#endif
}

static bool is_module(VALUE v)
{
    return RB_TYPE_P(v, T_CLASS) || RB_TYPE_P(v, T_MODULE);
}

/* Whether `str` has the two bytes `a` `b` in a row. */
static bool has_pair(VALUE str, char a, char b)
{
    const char *p = RSTRING_PTR(str);
    for (long i = 0; i + 1 < RSTRING_LEN(str); i++)
        if (p[i] == a && p[i + 1] == b) return true;
    return false;
}

/* ---- a naming pass's memo ------------------------------------------- */

/* One stop names thousands of methods of a few owners (a Struct's
 * members), and Struct.new or Class.new in a loop make thousands of
 * anonymous owners in a few files. The pass's memo is a Ruby Array that
 * its caller holds in a local variable (the stack scan marks and pins
 * it), never a global, so that two threads stopping at once, or a stop
 * and a call of Naming.module_name, each have their own:
 *   [{module or object => its name}.compare_by_identity,
 *    {file => short path}, the working directory (false until read),
 *    the last file shortened, its short path]. */
enum { MEMO_NAMES, MEMO_PATHS, MEMO_PWD, MEMO_FILE, MEMO_SHORT, MEMO_SIZE };

VALUE naming_pass_new(void)
{
    VALUE names = rb_hash_new();
    rb_funcall(names, id_compare_by_identity, 0);
    return rb_ary_new_from_args(MEMO_SIZE, names, rb_hash_new(), Qfalse, Qnil, Qnil);
}

/* Tracegraph.short_path(file), from the working directory as the pass
 * first read it; each file shortened once. */
static VALUE memo_short_path(VALUE memo, VALUE file)
{
    if (RARRAY_AREF(memo, MEMO_FILE) == file) return RARRAY_AREF(memo, MEMO_SHORT);
    VALUE paths = RARRAY_AREF(memo, MEMO_PATHS);
    VALUE short_path = rb_hash_lookup2(paths, file, Qundef);
    if (short_path == Qundef) {
        VALUE pwd = RARRAY_AREF(memo, MEMO_PWD);
        if (pwd == Qfalse) {
            pwd = rb_funcall(mTracegraph, id_working_dir_prefix, 0);
            rb_ary_store(memo, MEMO_PWD, pwd);
        }
        VALUE options = rb_hash_new();
        rb_hash_aset(options, ID2SYM(id_pwd), pwd);
        VALUE args[2] = {file, options};
        short_path = rb_obj_as_string(rb_funcallv_kw(mTracegraph, id_short_path, 2, args, RB_PASS_KEYWORDS));
        rb_hash_aset(paths, file, short_path);
    }
    rb_ary_store(memo, MEMO_FILE, file);
    rb_ary_store(memo, MEMO_SHORT, short_path);
    return short_path;
}

/* ---- owners, by where they were defined ------------------------------- */

/* Module.instance_method(:instance_method): bound to each module, it
 * is not looked up again in every new class's empty method cache, and no
 * class's own instance_method runs. */
static VALUE um_instance_method;

/* The earliest [file, line] so far, as Array#min orders them. */
typedef struct earliest {
    VALUE file;
    long line;
} earliest;

/* A location that is not [String, Integer, ...] (none is, from Ruby) is
 * passed over. */
static void keep_earliest(earliest *e, VALUE location)
{
    if (!RB_TYPE_P(location, T_ARRAY) || RARRAY_LEN(location) < 2) return;
    VALUE file = RARRAY_AREF(location, 0), line = RARRAY_AREF(location, 1);
    if (!RB_TYPE_P(file, T_STRING) || !FIXNUM_P(line)) return;
    if (!NIL_P(e->file)) {
        int order = rb_str_cmp(file, e->file);
        if (order > 0 || (order == 0 && FIX2LONG(line) >= e->line)) return;
    }
    e->file = file;
    e->line = FIX2LONG(line);
}

/* Whether instance method `sym`, defined at `location`, is a template
 * ActionView compiled into its anonymous view class: which of those exist
 * depends on what has been rendered, so they do not name it. Only a name
 * with "__" can be one (Naming.template_name says). */
static bool compiled_template(VALUE sym, VALUE location)
{
    VALUE name = rb_sym2str(sym);
    if (!has_pair(name, '_', '_') || !RB_TYPE_P(location, T_ARRAY) || RARRAY_LEN(location) < 1) return false;
    VALUE label = rb_str_plus(rb_str_new_cstr("#"), name);
    VALUE naming = rb_const_get_at(mTracegraph, id_naming);
    return RTEST(rb_funcall(naming, id_template_name, 2, label, RARRAY_AREF(location, 0)));
}

/* The earliest location of the methods a module defines itself: instance
 * methods of every visibility (not compiled templates), then singleton
 * methods. Module's and Kernel's own methods are called, never a
 * module's overrides: no user code runs. */
static earliest definition_location(VALUE mod)
{
    const VALUE no = Qfalse;
    earliest e = {.file = Qnil};
    VALUE lists[2] = {rb_class_instance_methods(1, &no, mod), rb_class_private_instance_methods(1, &no, mod)};
    for (int l = 0; l < 2; l++) {
        for (long i = 0; i < RARRAY_LEN(lists[l]); i++) {
            VALUE sym = RARRAY_AREF(lists[l], i);
            VALUE um = rb_funcall(um_instance_method, id_bind_call, 2, mod, sym);
            VALUE location = rb_funcall(um, id_source_location, 0);
            if (!compiled_template(sym, location)) keep_earliest(&e, location);
        }
    }
    VALUE singletons = rb_obj_singleton_methods(1, &no, mod);
    for (long i = 0; i < RARRAY_LEN(singletons); i++)
        keep_earliest(&e, rb_funcall(rb_obj_method(mod, RARRAY_AREF(singletons, i)), id_source_location, 0));
    RB_GC_GUARD(lists[0]);
    RB_GC_GUARD(lists[1]);
    RB_GC_GUARD(singletons);
    return e;
}

/* A module's name: its own (Module#name's, not a class's own `name`) if
 * it has one not nested in an anonymous module; else where it was
 * defined, by the first of its own methods written in Ruby (by file and
 * line): "#<Class:app/jobs.rb:12>"; else, for a class, by its superclass:
 * "#<Class < Struct>"; else "#<Class>" or "#<Module>". Raises TypeError
 * for what is not a module. A memo's string: dup it to change it. */
static VALUE module_name(VALUE mod, VALUE memo)
{
    if (!is_module(mod)) rb_raise(rb_eTypeError, "not a class or module: %" PRIsVALUE, rb_any_to_s(mod));
    VALUE own = rb_mod_name(mod);   /* a temporary name (Module#set_temporary_name) too */
    if (RB_TYPE_P(own, T_STRING) && !has_pair(own, '#', '<')) return own;
    VALUE names = RARRAY_AREF(memo, MEMO_NAMES);
    VALUE name = rb_hash_lookup2(names, mod, Qundef);
    if (name != Qundef) return name;

    bool is_class = RB_TYPE_P(mod, T_CLASS);
    earliest e = definition_location(mod);
    VALUE superclass = Qnil;
    if (!NIL_P(e.file)) {
        VALUE short_path = memo_short_path(memo, e.file);
        name = rb_utf8_str_new_cstr(is_class ? "#<Class:" : "#<Module:");
        rb_str_cat(name, RSTRING_PTR(short_path), RSTRING_LEN(short_path));
        char line[24];   /* rb_str_catf's formatter cost more than the rest of the name */
        int n = snprintf(line, sizeof line, ":%ld>", e.line);
        rb_str_cat(name, line, n);
    } else if (is_class && !NIL_P(superclass = rb_class_superclass(mod))) {
        VALUE super_name = module_name(superclass, memo);
        name = rb_utf8_str_new_cstr("#<Class < ");
        rb_str_cat(name, RSTRING_PTR(super_name), RSTRING_LEN(super_name));
        rb_str_cat_cstr(name, ">");
    } else {
        name = rb_utf8_str_new_cstr(is_class ? "#<Class>" : "#<Module>");
    }
    rb_hash_aset(names, mod, name);
    RB_GC_GUARD(e.file);
    return name;
}

/* A plain object's name: the top-level constant that holds it (ENV,
 * ARGF), else its class's: "#<Object>". */
static VALUE object_name(VALUE object, VALUE memo)
{
    VALUE names = RARRAY_AREF(memo, MEMO_NAMES);
    VALUE name = rb_hash_lookup2(names, object, Qundef);
    if (name != Qundef) return name;
    name = rb_funcall(rb_const_get_at(mTracegraph, id_naming), id_constant_holding, 1, object);
    if (!RB_TYPE_P(name, T_STRING)) {
        VALUE class_name = module_name(rb_obj_class(object), memo);
        name = rb_utf8_str_new_cstr("#<");
        rb_str_cat(name, RSTRING_PTR(class_name), RSTRING_LEN(class_name));
        rb_str_cat_cstr(name, ">");
    }
    rb_hash_aset(names, object, name);
    return name;
}

typedef struct owner_args {
    VALUE owner, memo;
} owner_args;

/* What goes before a method's name: its module's name, or for a singleton
 * class, the name of the module or object it belongs to. Under
 * rb_protect. */
static VALUE owner_name(VALUE arg)
{
    const owner_args *a = (const owner_args *)arg;
    if (!(RB_TYPE_P(a->owner, T_CLASS) && FL_TEST(a->owner, FL_SINGLETON))) return module_name(a->owner, a->memo);
    VALUE attached = singleton_object(a->owner);
    return is_module(attached) ? module_name(attached, a->memo) : object_name(attached, a->memo);
}

/* Tracegraph._module_name(mod) and ._object_name(object), for
 * Tracegraph::Naming: the same rule, with a memo of their own. */
static VALUE name_alone(VALUE (*namer)(VALUE, VALUE), VALUE target)
{
    VALUE memo = naming_pass_new();
    VALUE name = rb_str_dup(namer(target, memo));
    RB_GC_GUARD(memo);
    return name;
}

static VALUE module_name_method(VALUE self, VALUE mod)
{
    (void)self;
    return name_alone(module_name, mod);
}

static VALUE object_name_method(VALUE self, VALUE object)
{
    (void)self;
    return name_alone(object_name, object);
}

typedef struct naming_call {
    VALUE label, owner, mid, line, method_name, in_line_block;
} naming_call;

/* Tracegraph::Naming.block_name(label, owner, mid, line, method_name,
 * in_line_block), under rb_protect. */
static VALUE call_block_name(VALUE arg)
{
    const naming_call *c = (const naming_call *)arg;
    VALUE naming = rb_const_get_at(mTracegraph, id_naming);
    return rb_funcall(naming, id_block_name, 6, c->label, c->owner, c->mid, c->line, c->method_name, c->in_line_block);
}

/* A block's name, the way backtraces print it, with the enclosing method
 * named as tracegraph names methods: "block in Foo#bar", "block (2
 * levels) in Foo.baz", and Ruby's own label for blocks outside methods
 * ("block in <main>", "block in <class:Foo>"). `method_name` is the
 * enclosing method's tracegraph name, or Qnil if there is none. */
static VALUE block_label_name(VALUE frame, int line, VALUE owner, ID owner_mid, VALUE method_name, bool in_line_block)
{
    VALUE label = rb_profile_frame_label(frame);
    naming_call c = {
        .label = RB_TYPE_P(label, T_STRING) ? rb_str_dup(label) : rb_str_new_cstr("block"),
        .owner = owner ? owner : Qnil,
        .mid = owner_mid ? ID2SYM(owner_mid) : Qnil,
        .line = INT2FIX(line),
        .method_name = method_name,
        .in_line_block = in_line_block ? Qtrue : Qfalse,
    };
    int state = 0;
    VALUE name = rb_protect(call_block_name, (VALUE)&c, &state);
    if (state || !RB_TYPE_P(name, T_STRING)) {
        rb_set_errinfo(Qnil);
        name = c.label;
    }
    return rb_enc_associate(rb_str_dup(name), rb_utf8_encoding());
}

/* [file, line] of a block (its first line). */
static VALUE block_location(VALUE frame, int line)
{
    VALUE path = rb_profile_frame_path(frame);
    if (RB_TYPE_P(path, T_STRING)) path = rb_enc_associate(rb_str_dup(path), rb_utf8_encoding());
    else path = Qnil;
    return rb_ary_new_from_args(2, path, INT2FIX(line));
}

/* "Class#meth" for instance methods, "Class.meth" for singleton methods of
 * a class, module or object, the owner named by owner_name. */
static VALUE method_name(const method_key *k, VALUE memo)
{
    /* A GC pseudo-method (session_gc_method). */
    if (NIL_P(k->klass)) return rb_utf8_str_new_cstr(tg_gc_node_name((uint32_t)k->mid));
    VALUE owner = k->klass;
    const char *separator = RB_TYPE_P(owner, T_CLASS) && FL_TEST(owner, FL_SINGLETON) ? "." : "#";
    int state = 0;
    owner_args args = {owner, memo};
    VALUE name = rb_protect(owner_name, (VALUE)&args, &state);
    if (state || !RB_TYPE_P(name, T_STRING)) {
        rb_set_errinfo(Qnil);
        name = rb_any_to_s(owner);
        separator = "#";
    }
    /* A path in the name may be in any encoding: label a copy UTF-8
     * before the method name joins it (Profile.clean_name scrubs). */
    name = as_utf8(rb_str_dup(name));
    rb_str_cat_cstr(name, separator);
    VALUE mname = rb_id2str(k->mid);
    /* Bytes, whatever either part's encoding: the whole is labelled UTF-8
     * and Profile.clean_name scrubs what is not. */
    if (mname) rb_str_cat(name, RSTRING_PTR(mname), RSTRING_LEN(mname));
    else rb_str_cat_cstr(name, "?");
    return as_utf8(name);
}

/* "block in Foo#bar" and the like: see block_label_name. */
static VALUE block_name(const method_key *k, VALUE memo)
{
    VALUE owner_name = Qnil;
    if (k->owner && k->owner_mid) {
        method_key owner = {.klass = k->owner, .mid = k->owner_mid};
        owner_name = method_name(&owner, memo);
    }
    return block_label_name(k->klass, block_line(k), k->owner, k->owner_mid, owner_name, k->in_line_block);
}

static VALUE source_location(VALUE key)
{
    const method_key *k = (const method_key *)key;
    /* Module#instance_method itself: not looked up in each class, nor
     * a class's own instance_method. */
    VALUE um = rb_funcall(um_instance_method, id_bind_call, 2, k->klass, ID2SYM(k->mid));
    return rb_funcall(um, id_source_location, 0);
}

VALUE naming_location(const method_key *k)
{
    if (k->is_c || NIL_P(k->klass)) return rb_ary_new_from_args(2, Qnil, Qnil);
    if (k->is_block) return block_location(k->klass, block_line(k));
    int state = 0;
    VALUE loc = rb_protect(source_location, (VALUE)k, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return rb_ary_new_from_args(2, Qnil, Qnil);
    }
    if (!RB_TYPE_P(loc, T_ARRAY)) return rb_ary_new_from_args(2, Qnil, Qnil);
    VALUE file = rb_ary_entry(loc, 0);
    /* The path is the iseq's own string: label a copy. */
    if (RB_TYPE_P(file, T_STRING)) rb_ary_store(loc, 0, as_utf8(rb_str_dup(file)));
    return loc;
}

VALUE naming_name(const method_key *k, VALUE pass)
{
    return k->is_block ? block_name(k, pass) : method_name(k, pass);
}

/* ---- blocks that share a name ---------------------------------------------- */

/* Ruby's rb_iseq_code_location (iseq.c), exported by libruby 3.1, 3.3 and
 * 3.4 but declared in no public header: looked up at init, so a Ruby
 * without it still loads, and numbers such blocks by order instead. */
typedef void iseq_code_location_fn(const void *iseq, int *first_lineno, int *first_column, int *last_lineno,
                                   int *last_column);
static iseq_code_location_fn *iseq_code_location;

/* A block's first column (0-based), or -1 when Ruby does not say. */
static int block_column(const method_key *k)
{
    if (!iseq_code_location || !ruby_vm_is_iseq(k->klass)) return -1;
    int first_line = 0, first_column = -1, last_line = 0, last_column = 0;
    iseq_code_location((const void *)k->klass, &first_line, &first_column, &last_line, &last_column);
    return first_column;
}

typedef struct apart_args {
    VALUE rows;
    const method_key *keys;
} apart_args;

static const char *ordinal_suffix(long n)
{
    if (n % 100 >= 11 && n % 100 <= 13) return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* One name shared by the blocks at indexes: each gets its column, or, if
 * two have the same column or Ruby gives none, its order on the line
 * (by column, else by index: the order recording first met them). */
static int tell_apart(VALUE name_file_line, VALUE indexes, VALUE arg)
{
    if (!RB_TYPE_P(indexes, T_ARRAY)) return ST_CONTINUE;
    const apart_args *a = (const apart_args *)arg;
    long n = RARRAY_LEN(indexes);
    int columns[64];
    long order[64];
    if (n > 64) n = 64; /* a line of more than 64 blocks keeps the rest alike */
    bool distinct = true;
    for (long i = 0; i < n; i++) {
        columns[i] = block_column(&a->keys[NUM2LONG(rb_ary_entry(indexes, i))]);
        order[i] = i;
        if (columns[i] < 0) distinct = false;
        for (long j = 0; j < i && distinct; j++)
            if (columns[j] == columns[i]) distinct = false;
    }
    /* Insertion sort of a few entries by column (-1 keeps index order). */
    for (long i = 1; i < n; i++)
        for (long j = i; j > 0 && columns[order[j - 1]] > columns[order[j]]; j--) {
            long t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    VALUE line = rb_ary_entry(name_file_line, 2);
    for (long rank = 0; rank < n; rank++) {
        long i = order[rank];
        VALUE row = rb_ary_entry(a->rows, NUM2LONG(rb_ary_entry(indexes, i)));
        VALUE name = rb_str_dup(rb_ary_entry(row, 0));
        char suffix[64];
        if (distinct) snprintf(suffix, sizeof suffix, " (column %d)", columns[i] + 1);
        else snprintf(suffix, sizeof suffix, " (%ld%s on line %ld)", rank + 1, ordinal_suffix(rank + 1),
                      FIXNUM_P(line) ? FIX2LONG(line) : 0L);
        rb_str_cat_cstr(name, suffix);
        rb_ary_store(row, 0, as_utf8(name));
    }
    return ST_CONTINUE;
}

void naming_tell_blocks_apart(VALUE rows, const method_key *keys, uint32_t count)
{
    VALUE seen = rb_hash_new();   /* [name, file, line] => index, or [indexes] once shared */
    for (uint32_t i = 0; i < count; i++) {
        if (!keys[i].is_block) continue;
        VALUE row = rb_ary_entry(rows, i);
        VALUE key = rb_ary_new_from_args(3, rb_ary_entry(row, 0), rb_ary_entry(row, 1), rb_ary_entry(row, 2));
        VALUE found = rb_hash_lookup2(seen, key, Qundef);
        if (found == Qundef) rb_hash_aset(seen, key, UINT2NUM(i));
        else if (RB_TYPE_P(found, T_ARRAY)) rb_ary_push(found, UINT2NUM(i));
        else rb_hash_aset(seen, key, rb_ary_new_from_args(2, found, UINT2NUM(i)));
    }
    apart_args a = {rows, keys};
    rb_hash_foreach(seen, tell_apart, (VALUE)&a);
    RB_GC_GUARD(seen);
}

void naming_init(VALUE mod)
{
    mTracegraph = mod;
    iseq_code_location = (iseq_code_location_fn *)dlsym(RTLD_DEFAULT, "rb_iseq_code_location");
    id_attached = rb_intern("__attached__");
    id_instance_method = rb_intern("instance_method");
    id_source_location = rb_intern("source_location");
    id_naming = rb_intern("Naming");
    id_block_name = rb_intern("block_name");
    id_bind_call = rb_intern("bind_call");
    id_short_path = rb_intern("short_path");
    id_working_dir_prefix = rb_intern("working_dir_prefix");
    id_pwd = rb_intern("pwd");
    id_template_name = rb_intern("template_name");
    id_constant_holding = rb_intern("constant_holding");
    id_compare_by_identity = rb_intern("compare_by_identity");
    um_instance_method = rb_funcall(rb_cModule, id_instance_method, 1, ID2SYM(id_instance_method));
    rb_gc_register_mark_object(um_instance_method);
    rb_define_singleton_method(mod, "_module_name", module_name_method, 1);
    rb_define_singleton_method(mod, "_object_name", object_name_method, 1);
}
